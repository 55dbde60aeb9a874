import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { exampleLines } from '../../src/cli/help-example.js';
import { COMMANDS } from '../../src/cli/commands.js';

const root = new URL('../..', import.meta.url).pathname;
const bin = join(root, 'dist/cli/main.js');
const ptyRun = join(root, 'test/cli/fixtures/pty-run.py');

/** The Examples section of a help text, each line without its indent. */
function examplesOf(help: string): string[] {
  const lines = help.replace(/\r/g, '').split('\n');
  const at = lines.indexOf('Examples:');
  return at < 0
    ? []
    : lines
        .slice(at + 1)
        .filter((l) => l.trim() !== '')
        .map((l) => l.trim());
}

describe('help examples', () => {
  it('break a long command between flags, never inside a flag or a quoted value', () => {
    const lines = exampleLines(
      '$0 compare reports/last-good reports/tonight --gate "delta(p99(run)) < 10%" --gate "new(violations) == 0"',
    );
    expect(lines).toEqual([
      'jobstorm compare reports/last-good reports/tonight \\',
      '--gate "delta(p99(run)) < 10%" --gate "new(violations) == 0"',
    ]);
    expect(exampleLines('$0 init')).toEqual(['jobstorm init']);
  });

  it(
    'of every command, in an 80-column terminal, fit the width and never wrap mid-command',
    { timeout: 60_000 },
    async () => {
      const names = COMMANDS.map((c) => c.command.split(' ')[0] ?? '');
      for (const name of names) {
        const { stdout } = await promisify(execFile)('python3', [ptyRun, '80', 'node', bin, name, '--help'], {
          cwd: root,
        });
        for (const line of stdout.replace(/\r/g, '').split('\n'))
          expect(line.length, `${name} --help: ${line}`).toBeLessThanOrEqual(80);
        const examples = examplesOf(stdout);
        expect(examples.length, `${name} --help has examples`).toBeGreaterThan(0);
        examples.forEach((line, i) => {
          // A comment, a command, or the continuation of a command whose line ended with " \".
          const continues = examples[i - 1]?.endsWith(' \\') === true;
          expect(
            line.startsWith('# ') || line.startsWith('jobstorm ') || continues,
            `${name} --help, examples line ${String(i)}: ${line}\n${examples.join('\n')}`,
          ).toBe(true);
          if (continues) expect(line).toMatch(/^--/);
        });
      }
    },
  );
});
