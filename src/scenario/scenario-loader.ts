import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { ConfigError } from '../core/index.js';
import { checkScenarioDocument, type ThresholdIssue } from './document-check.js';
import type { CheckIssue } from './known-file.js';
import { interpolateStrings, type Env } from './env-interpolation.js';
import { defaultExport, importModule } from './module-import.js';
import type { Scenario } from './scenario.js';
import type { ScenarioInput } from './scenario-schema.js';
import { parseScenario, withPath } from './scenario-parser.js';
import { transformIssues } from './transform-error.js';

export const TEXT_EXTENSIONS = ['.yaml', '.yml', '.json'] as const;
export const MODULE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'] as const;

export interface LoadOptions {
  /** Values for `${NAME}` interpolation (the CLI passes process.env). */
  readonly env?: Env;
  /** Judges each threshold expression with the field errors (see DocumentCheckOptions). */
  readonly thresholdIssue?: ThresholdIssue;
  /** Judges each check id or glob the scenario names (see DocumentCheckOptions). */
  readonly checkIssue?: CheckIssue;
}

/**
 * For TypeScript and JavaScript scenario files: `export default defineScenario({...})`. An identity
 * function; it exists so the editor checks the object against the scenario format.
 */
export function defineScenario(scenario: ScenarioInput): ScenarioInput {
  return scenario;
}

function fail(where: string, message: string): never {
  throw new ConfigError([{ where, message }]);
}

async function importDefault(file: string, shown: string): Promise<unknown> {
  let mod: unknown;
  try {
    // tsx compiles TypeScript on the fly (Node 20 cannot strip types); it loads JavaScript as it is.
    mod = await importModule(file);
  } catch (err) {
    const message = (err as Error).message;
    const located = transformIssues(message, file, shown);
    if (located.length > 0) throw new ConfigError(located);
    fail(shown, `cannot load the scenario module: ${message.split('\n')[0] ?? ''}`);
  }
  const exported = defaultExport(mod);
  if (exported === undefined) {
    fail(shown, 'the module has no default export (write: export default defineScenario({...}))');
  }
  return exported;
}

async function loadModule(file: string, shown: string, options: LoadOptions): Promise<Scenario> {
  const env = options.env ?? {};
  const exported = await importDefault(file, shown);
  const { value, problems } = interpolateStrings(exported, env);
  const check = checkScenarioDocument(value, {
    source: shown,
    readFile: (path) => readFileSync(path, 'utf8'),
    thresholdIssue: options.thresholdIssue,
    checkIssue: options.checkIssue,
  });
  // No positions in a module: order by key path so related problems sit together.
  const messages = [...problems, ...check.issues]
    .map(withPath)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const issues = messages.map((message) => ({ where: shown, message }));
  if (issues.length > 0 || check.located.length > 0 || check.scenario === undefined) {
    throw new ConfigError([...issues, ...check.located]);
  }
  return check.scenario;
}

/**
 * Loads a scenario file: `.yaml`/`.yml`/`.json` text, or a `.ts`/`.mts`/`.cts`/`.js`/`.mjs`/`.cjs`
 * module whose default export is the scenario (`module.exports` for CommonJS). Throws one
 * ConfigError with every problem found.
 */
export async function loadScenario(path: string, options: LoadOptions = {}): Promise<Scenario> {
  const ext = extname(path).toLowerCase();
  const file = resolve(path);
  if ((MODULE_EXTENSIONS as readonly string[]).includes(ext)) return loadModule(file, path, options);
  if (!(TEXT_EXTENSIONS as readonly string[]).includes(ext)) {
    fail(
      path,
      `unsupported scenario file type "${ext}"; use ${[...TEXT_EXTENSIONS, ...MODULE_EXTENSIONS].join(', ')}`,
    );
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    fail(
      path,
      `cannot read the scenario file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  return parseScenario(text, path, options);
}
