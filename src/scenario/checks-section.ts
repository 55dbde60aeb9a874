import { isAbsolute, join, dirname } from 'node:path';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import type { KnownDeviations, SkippedCheck } from '../core/known-deviation.js';
import { parseKnownFile, type CheckIssue } from './known-file.js';
import { fileBesideScenario, scenarioChecks } from './normalization.js';
import type { PathIssue } from './path-format.js';
import type { Scenario } from './scenario.js';

/*
 * The scenario's `checks:` section (issue 53; its schema is in checks-schema.ts): checks not to run,
 * each with why, and a file of known deviations whose findings do not fail the run.
 * `--skip-check` and `--known` add to it.
 */

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Each `checks.skip[].check` as written, judged by the caller's catalog. */
export function skipIssues(doc: unknown, judge: CheckIssue | undefined): PathIssue[] {
  const checks = isRecord(doc) ? doc.checks : undefined;
  if (!judge || !isRecord(checks) || !Array.isArray(checks.skip)) return [];
  return checks.skip.flatMap((item: unknown, i): PathIssue[] => {
    const check = isRecord(item) ? item.check : undefined;
    const problem = typeof check === 'string' && check !== '' ? judge(check) : undefined;
    return problem === undefined ? [] : [{ path: ['checks', 'skip', i, 'check'], message: problem }];
  });
}

export interface KnownLoad {
  readonly known?: KnownDeviations;
  readonly issues: PathIssue[];
  /** Problems inside the known file, at its own lines. */
  readonly located: ConfigIssue[];
}

/** The file `checks.known` names, read and validated; its problems at its own file:line. */
export function loadKnownOf(
  doc: unknown,
  source: string,
  readFile: (path: string) => string,
  judge: CheckIssue | undefined,
): KnownLoad {
  const checks = isRecord(doc) ? doc.checks : undefined;
  if (!isRecord(checks) || typeof checks.known !== 'string' || checks.known === '')
    return { issues: [], located: [] };
  const shown = isAbsolute(checks.known) ? checks.known : join(dirname(source), checks.known);
  let text: string;
  try {
    text = readFile(fileBesideScenario(checks.known, source));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return {
      issues: [
        { path: ['checks', 'known'], message: `cannot read the known-deviations file ${shown} (${code})` },
      ],
      located: [],
    };
  }
  try {
    return { known: parseKnownFile(text, shown, judge ?? (() => undefined)), issues: [], located: [] };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return { issues: [], located: [...err.issues] };
  }
}

/**
 * The scenario with `--skip-check` items after its own and `--known` in place of its file (a flag
 * overrides the file, as every flag does).
 */
export function withChecks(
  s: Scenario,
  flags: { skip: readonly SkippedCheck[]; known?: KnownDeviations },
): Scenario {
  const checks = scenarioChecks([...(s.checks?.skip ?? []), ...flags.skip], flags.known ?? s.checks?.known);
  if (checks === undefined) return s;
  return { ...s, checks };
}
