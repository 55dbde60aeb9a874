import { CHECK_IDS } from '../../check/catalog.js';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { parseThresholds } from '../../report/threshold.js';
import { loadScenario } from '../../scenario/scenario-loader.js';
import type { Scenario } from '../../scenario/scenario.js';
import { checkIssue } from '../known-flags.js';

/** Runs one validation so that its problems join the others instead of stopping at the first. */
export function collect<T>(issues: ConfigIssue[], validate: () => T): T | undefined {
  try {
    return validate();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    issues.push(...err.issues);
    return undefined;
  }
}

/**
 * A scenario's threshold judged with the file's other problems, so a bare number there is not
 * reported only once every field error is fixed (issue 47).
 */
function thresholdIssue(expression: string): string | undefined {
  const issues: ConfigIssue[] = [];
  collect(issues, () => parseThresholds([expression], { checkIds: CHECK_IDS }));
  return issues.length === 0 ? undefined : issues.map((i) => i.message).join('; ');
}

/** Loads a scenario file, its problems joining `issues` (undefined when it has any). */
export async function loadScenarioInto(
  issues: ConfigIssue[],
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Scenario | undefined> {
  try {
    return await loadScenario(path, { env, thresholdIssue, checkIssue });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    issues.push(...err.issues);
    return undefined;
  }
}
