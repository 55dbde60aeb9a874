import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const cwd = new URL('../../', import.meta.url).pathname;

/** Lints `code` as if it lived at `filePath`, with type-aware rules off (the file is not on disk). */
async function lint(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd,
    overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }],
  });
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

describe('DESIGN.md import directions, enforced by ESLint', () => {
  it.each([
    [
      'src/core/x.ts',
      "import { LIMITS } from '../../contracts/queue/limits.js';\nexport const y = LIMITS;\n",
    ],
    ['src/check/x.ts', "import { runCli } from '../cli/cli.js';\nexport const y = runCli;\n"],
    ['src/emulator/x.ts', "import { y as z } from '../check/y.js';\nexport const y = z;\n"],
    ['src/metrics/x.ts', "import { y as z } from '../report/y.js';\nexport const y = z;\n"],
    ['src/report/x.ts', "import { y as z } from '../../contracts/index.js';\nexport const y = z;\n"],
    ['src/runner/x.ts', "import { runCli } from '../cli/cli.js';\nexport const y = runCli;\n"],
    ['src/compare/x.ts', "import { y as z } from '../runner/y.js';\nexport const y = z;\n"],
    // The job fold knows none of its consumers, and the innermost layer does not know the fold.
    ['src/fold/x.ts', "import { y as z } from '../metrics/y.js';\nexport const y = z;\n"],
    ['src/fold/x.ts', "import { y as z } from '../check/y.js';\nexport const y = z;\n"],
    ['src/core/x.ts', "import { y as z } from '../fold/y.js';\nexport const y = z;\n"],
    // Trace readers know only core; the pure schedule does not read files.
    ['src/trace/x.ts', "import { y as z } from '../schedule/y.js';\nexport const y = z;\n"],
    ['src/schedule/x.ts', "import { y as z } from '../trace/y.js';\nexport const y = z;\n"],
    // The fuzzer drives runs from outside; nothing the run is made of knows it.
    ['src/check/x.ts', "import { y as z } from '../fuzz/y.js';\nexport const y = z;\n"],
    ['src/session/x.ts', "import { y as z } from '../fuzz/y.js';\nexport const y = z;\n"],
    ['src/steps/x.ts', "import { y as z } from '../fuzz/y.js';\nexport const y = z;\n"],
  ])('%s may not import that', async (file, code) => {
    const messages = await lint(file, code);
    expect(messages.some((m) => m.startsWith('no-restricted-imports'))).toBe(true);
  });

  it.each([
    [
      'src/check/x.ts',
      "import { LIMITS } from '../../contracts/queue/limits.js';\nimport { ExitCode } from '../core/exit-code.js';\nexport const y = [LIMITS, ExitCode];\n",
    ],
    ['src/report/x.ts', "import { y as z } from '../metrics/y.js';\nexport const y = z;\n"],
    // Checks and metrics consume the one job fold.
    ['src/check/x.ts', "import { y as z } from '../fold/y.js';\nexport const y = z;\n"],
    ['src/metrics/x.ts', "import { y as z } from '../fold/y.js';\nexport const y = z;\n"],
    ['src/fold/x.ts', "import { y as z } from '../core/y.js';\nexport const y = z;\n"],
    ['src/trace/x.ts', "import { y as z } from '../core/y.js';\nexport const y = z;\n"],
    [
      'src/fuzz/x.ts',
      "import { y as z } from '../library/y.js';\nimport { w } from '../check/w.js';\nexport const y = [z, w];\n",
    ],
    [
      'src/compare/x.ts',
      "import { y as z } from '../report/y.js';\nimport { w } from '../metrics/w.js';\nexport const y = [z, w];\n",
    ],
    [
      'src/cli/x.ts',
      "import { y as z } from '../runner/y.js';\nexport const y = [z, process.env.HOME];\nconsole.log(y);\n",
    ],
  ])('%s may import inward', async (file, code) => {
    const messages = await lint(file, code);
    expect(messages.filter((m) => m.startsWith('no-restricted') || m.startsWith('no-console'))).toEqual([]);
  });

  it('only src/cli/ touches process and the console', async () => {
    const messages = await lint(
      'src/runner/x.ts',
      'export const k = process.env.JOBSTORM_API_KEY;\nconsole.log(k);\n',
    );
    expect(
      messages.some((m) => m.startsWith('no-restricted-globals') || m.startsWith('no-restricted-properties')),
    ).toBe(true);
    expect(messages.some((m) => m.startsWith('no-console'))).toBe(true);
    const imported = await lint(
      'src/emulator/x.ts',
      "import process from 'node:process';\nexport const y = process;\n",
    );
    expect(imported.some((m) => m.startsWith('no-restricted-imports'))).toBe(true);
  });
});
