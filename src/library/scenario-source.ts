import { readFileSync } from 'node:fs';
import { CHECK_IDS } from '../check/catalog.js';
import { ConfigError } from '../core/config-error.js';
import { checkPatternIssue } from '../report/check-pattern.js';
import { checkScenarioDocument } from '../scenario/document-check.js';
import { withPath } from '../scenario/scenario-parser.js';
import { loadScenario } from '../scenario/scenario-loader.js';
import type { Scenario } from '../scenario/scenario.js';
import type { RunJobstormOptions } from './library-options.js';

/** The name a scenario object's problems are reported under. */
const OBJECT_SOURCE = 'scenario';

/** Check ids and globs a scenario names (`checks.skip`, its known file), judged by the catalog. */
const checkIssue = (pattern: string): string | undefined => checkPatternIssue(pattern, CHECK_IDS);

/** The scenario of `scenario` or `scenarioFile` (exactly one), validated in full. */
export async function scenarioOf(
  o: Pick<RunJobstormOptions, 'scenario' | 'scenarioFile' | 'env'>,
): Promise<Scenario> {
  if ((o.scenario === undefined) === (o.scenarioFile === undefined))
    throw new ConfigError([
      { where: 'runJobstorm', message: 'give exactly one of scenario and scenarioFile' },
    ]);
  if (o.scenarioFile !== undefined)
    return loadScenario(o.scenarioFile, { ...(o.env ? { env: o.env } : {}), checkIssue });
  const check = checkScenarioDocument(o.scenario, {
    source: OBJECT_SOURCE,
    readFile: (path) => readFileSync(path, 'utf8'),
    checkIssue,
  });
  const issues = check.issues.map((i) => ({ where: OBJECT_SOURCE, message: withPath(i) }));
  if (issues.length > 0 || check.located.length > 0 || check.scenario === undefined)
    throw new ConfigError([...issues, ...check.located]);
  return check.scenario;
}
