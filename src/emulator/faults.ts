import { z } from 'zod';
import type { ConfigIssue } from '../core/config-error.js';

/**
 * One switch per rule of the spec the emulator can break. Each exists to prove that a check of
 * the toolkit catches what it claims to catch, so each changes exactly the behaviour it names and
 * nothing else. The description is the rule it breaks, in one line (the checker lists them).
 */
export const FAULTS = {
  'early-429': 'answers 429 once half of the effective rate limit (per window) is used, before the limit is reached',
  'no-429': 'never answers 429: neither the per-window rate limit nor the concurrency cap is enforced',
  'cancel-ignored': 'POST /cancel answers CANCELLED but the job keeps going and later ends COMPLETED (or as its handler decides)',
  'retry-any': 'POST /retry is accepted for a job in any final state (COMPLETED, CANCELLED), not only FAILED or TIMED_OUT',
  'purge-running': 'POST /purge-queue also cancels jobs already IN_PROGRESS (and counts them in removed)',
  'lose-jobs': 'a job is forgotten (404) 5 s after it reaches a final state, long before its ttl and retention expire',
  'ttl-ignored': 'policy.ttl and /status?ttl= are not enforced: jobs outlive their ttl (retention still applies)',
  'timeout-ignored': 'policy.executionTimeout is not enforced: a job runs past it and never ends TIMED_OUT',
  'wrong-types': 'job bodies (status, runsync, status-sync, webhook; not stream) carry delayTime and executionTime as strings',
  'backwards-status': 'after a job COMPLETED, every second /status read shows it IN_PROGRESS again',
  'no-webhook-retry': 'a webhook that does not answer 200 is not retried (one attempt instead of three)',
  'oversize-accepted': 'bodies over the /run (10 MB) and /runsync (20 MB) limits are accepted (up to 4x the limit)',
  'auth-open': 'any Authorization header, wrong or missing, is accepted on the /v1 and /v2 APIs',
  'health-drift': 'GET /health counts every completed job twice in jobs.completed',
  'chunk-too-large': 'streamed chunks are not split at 1 MB; each is padded past 1 MiB',
  'server-errors': 'a fraction (the value, default 0.1) of /v1 and /v2 requests answer 500 before doing anything',
} as const satisfies Record<string, string>;

export type FaultName = keyof typeof FAULTS;
export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];

export function isFaultName(name: string): name is FaultName {
  return Object.hasOwn(FAULTS, name);
}

/** The fraction of 500s when `server-errors` is switched on without a value. */
export const DEFAULT_SERVER_ERROR_RATE = 0.1;

/**
 * Faults as options, the CLI and the admin API give them: a list of `name` or `name=value`, or an
 * object `{ name: true | false | value }`.
 */
export const FaultsInputSchema = z.union([
  z.array(z.string()),
  z.record(z.string(), z.union([z.boolean(), z.number()])),
]);
export type FaultsInput = z.infer<typeof FaultsInputSchema>;

/** The switched-on faults and their values (1 for plain switches, the fraction for server-errors). */
export class FaultSet {
  private readonly on = new Map<FaultName, number>();
  /** Hot-path copies, read on every request. */
  serverErrorRate = 0;
  authOpen = false;
  no429 = false;
  early429 = false;

  has(name: FaultName): boolean {
    return this.on.has(name);
  }

  set(name: FaultName, value: number): void {
    if (value <= 0) this.on.delete(name);
    else this.on.set(name, value);
    this.refresh();
  }

  clear(name?: FaultName): void {
    if (name === undefined) this.on.clear();
    else this.on.delete(name);
    this.refresh();
  }

  /** Every fault with its description and value (0 when off), for the admin API. */
  list(): { name: FaultName; description: string; enabled: boolean; value: number }[] {
    return FAULT_NAMES.map((name) => {
      const value = this.on.get(name) ?? 0;
      return { name, description: FAULTS[name], enabled: value > 0, value };
    });
  }

  enabled(): Record<string, number> {
    return Object.fromEntries(this.on);
  }

  private refresh(): void {
    this.serverErrorRate = this.on.get('server-errors') ?? 0;
    this.authOpen = this.on.has('auth-open');
    this.no429 = this.on.has('no-429');
    this.early429 = this.on.has('early-429');
  }
}

/**
 * Turns the input forms into (name, value) pairs, collecting every problem (unknown name, a
 * server-errors fraction outside (0, 1]) instead of stopping at the first.
 */
export function parseFaults(input: FaultsInput, where: string): { faults: [FaultName, number][]; issues: ConfigIssue[] } {
  const pairs: [string, boolean | number | string][] = Array.isArray(input)
    ? input.map((item): [string, string | boolean] => {
        const eq = item.indexOf('=');
        return eq < 0 ? [item.trim(), true] : [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
      })
    : Object.entries(input);
  const faults: [FaultName, number][] = [];
  const issues: ConfigIssue[] = [];
  for (const [name, raw] of pairs) {
    if (!isFaultName(name)) {
      issues.push({ where, message: `unknown fault "${name}" (known: ${FAULT_NAMES.join(', ')})` });
      continue;
    }
    const value = faultValue(name, raw);
    if (value === undefined) {
      issues.push({
        where,
        message:
          name === 'server-errors'
            ? `server-errors takes a fraction in (0, 1], got "${String(raw)}"`
            : `${name} is a switch: give true or false, got "${String(raw)}"`,
      });
      continue;
    }
    faults.push([name, value]);
  }
  return { faults, issues };
}

function faultValue(name: FaultName, raw: boolean | number | string): number | undefined {
  if (raw === true) return name === 'server-errors' ? DEFAULT_SERVER_ERROR_RATE : 1;
  if (raw === false || raw === 'false') return 0;
  if (name !== 'server-errors') return raw === 'true' || raw === 1 ? 1 : undefined;
  const n = typeof raw === 'number' ? raw : Number(raw);
  return Number.isFinite(n) && n > 0 && n <= 1 ? n : undefined;
}
