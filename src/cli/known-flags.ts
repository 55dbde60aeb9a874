import { CHECK_IDS } from '../check/catalog.js';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import type { KnownDeviations, SkippedCheck } from '../core/known-deviation.js';
import { checkPatternIssue } from '../report/check-pattern.js';
import { loadKnownFile } from '../scenario/known-file.js';

/** `run`'s and `check`'s flags for checks not to run and deviations to accept (issue 53). */
export const KNOWN_OPTIONS = {
  'skip-check': {
    type: 'string',
    array: true,
    describe:
      'do not run a check: ID=WHY, ID a check id or glob (auth.*); it counts as not exercised and every report lists it as skipped, with why (repeatable)',
  },
  known: {
    type: 'string',
    describe:
      'a file of known deviations: findings an entry matches are shown and counted as known and do not fail the run; new ones fail it as ever (jobstorm known writes one)',
  },
} as const;

export interface KnownArgs {
  'skip-check'?: string[];
  known?: string;
}

export interface KnownFlags {
  skip: SkippedCheck[];
  known?: KnownDeviations;
}

/** Judges a check id or glob against the catalog, with the nearest id when it names none. */
export const checkIssue = (pattern: string): string | undefined => checkPatternIssue(pattern, CHECK_IDS);

/** `auth.*=no authentication on the private network` as a skipped check, or its problem. */
function skippedOf(text: string, issues: ConfigIssue[]): SkippedCheck | undefined {
  const at = text.indexOf('=');
  const check = (at < 0 ? text : text.slice(0, at)).trim();
  const why = at < 0 ? '' : text.slice(at + 1).trim();
  if (check === '' || why === '') {
    issues.push({
      where: '--skip-check',
      message: `"${text}": write ID=WHY, e.g. --skip-check "auth.missing-key-accepted=no authentication on the private network" (every report says why)`,
    });
    return undefined;
  }
  const problem = checkIssue(check);
  if (problem !== undefined) {
    issues.push({ where: '--skip-check', message: problem });
    return undefined;
  }
  return { check, why };
}

/** Both flags validated, their problems joining `issues`. */
export function parseKnownFlags(args: KnownArgs, issues: ConfigIssue[]): KnownFlags {
  const skip = (args['skip-check'] ?? []).flatMap((t) => skippedOf(t, issues) ?? []);
  if (args.known === undefined) return { skip };
  try {
    return { skip, known: loadKnownFile(args.known, checkIssue) };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    issues.push(...err.issues);
    return { skip };
  }
}
