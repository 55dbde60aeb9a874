import type { ExchangeRecord } from '../core/record.js';

/** One answered /health read, as the scaling rules read it. */
export interface HealthSample {
  readonly record: ExchangeRecord;
  readonly idle: number;
  readonly running: number;
  /** Absent when the server does not report `workers.initializing` (some do not). */
  readonly initializing?: number;
  readonly inQueue: number;
  /** jobs.completed + jobs.failed: when it moves between two reads, a worker ran a job in between. */
  readonly finished?: number;
}

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

const sum = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined || b === undefined ? undefined : a + b;

/**
 * The worker and queue counts of a 200 /health answer, or undefined when it has none to read
 * (a body without `workers.idle`, `workers.running` and `jobs.inQueue` as counts). `throttled` and
 * `unhealthy` workers are left out: they run no job and are not what workersMax bounds.
 */
export function healthSample(r: ExchangeRecord): HealthSample | undefined {
  if (r.op !== 'health' || r.status !== 200) return undefined;
  const b = r.body as { jobs?: Record<string, unknown>; workers?: Record<string, unknown> } | undefined;
  const workers = b?.workers ?? {};
  const jobs = b?.jobs ?? {};
  const idle = count(workers.idle);
  const running = count(workers.running);
  const inQueue = count(jobs.inQueue);
  if (idle === undefined || running === undefined || inQueue === undefined) return undefined;
  const initializing = count(workers.initializing);
  const finished = sum(count(jobs.completed), count(jobs.failed));
  return {
    record: r,
    idle,
    running,
    inQueue,
    ...(initializing === undefined ? {} : { initializing }),
    ...(finished === undefined ? {} : { finished }),
  };
}

/** Workers /health counted: idle, running and (when reported) initializing. */
export function workersOf(s: HealthSample): number {
  return s.idle + s.running + (s.initializing ?? 0);
}

/** The counts as a finding says them. */
export function countsText(s: HealthSample): string {
  const init = s.initializing === undefined ? '' : `, ${String(s.initializing)} initializing`;
  return `${String(workersOf(s))} workers (${String(s.idle)} idle, ${String(s.running)} running${init}), ${String(s.inQueue)} jobs in queue`;
}
