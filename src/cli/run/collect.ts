import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { loadScenario } from '../../scenario/scenario-loader.js';
import type { Scenario } from '../../scenario/scenario.js';

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

/** Loads a scenario file, its problems joining `issues` (undefined when it has any). */
export async function loadScenarioInto(
  issues: ConfigIssue[],
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Scenario | undefined> {
  try {
    return await loadScenario(path, { env });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    issues.push(...err.issues);
    return undefined;
  }
}
