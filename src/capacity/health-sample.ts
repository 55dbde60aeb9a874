import type { ExchangeRecord } from '../core/record.js';

/** One answered /health call: what the endpoint said about its queue and workers at `atMs`. */
export interface HealthSample {
  /** Midpoint of the exchange, ms on the clock of the records it came from. */
  atMs: number;
  inQueue: number;
  inProgress: number;
  running: number;
  idle: number;
  /** Cumulative counters, when the body has them: the endpoint's own throughput. */
  completed?: number;
  failed?: number;
}

function group(body: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const g = (body as Record<string, unknown>)[key];
  return typeof g === 'object' && g !== null && !Array.isArray(g)
    ? (g as Record<string, unknown>)
    : undefined;
}

function count(g: Record<string, unknown> | undefined, key: string): number | undefined {
  const v = g?.[key];
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/**
 * Reads a /health exchange; undefined for anything else, or for a body without the gauges the
 * capacity search needs (a contract violation the checks report; here it is just no sample).
 */
export function healthSampleOf(r: ExchangeRecord): HealthSample | undefined {
  if (r.op !== 'health' || r.status === undefined || r.status < 200 || r.status >= 300) return undefined;
  const jobs = group(r.body, 'jobs');
  const workers = group(r.body, 'workers');
  const inQueue = count(jobs, 'inQueue');
  const inProgress = count(jobs, 'inProgress');
  if (inQueue === undefined || inProgress === undefined) return undefined;
  const sample: HealthSample = {
    atMs: (r.sentAt + r.endAt) / 2,
    inQueue,
    inProgress,
    running: count(workers, 'running') ?? 0,
    idle: count(workers, 'idle') ?? 0,
  };
  const completed = count(jobs, 'completed');
  const failed = count(jobs, 'failed');
  if (completed !== undefined) sample.completed = completed;
  if (failed !== undefined) sample.failed = failed;
  return sample;
}

/** Jobs the endpoint holds: waiting plus running. */
export function jobsInSystem(s: HealthSample): number {
  return s.inQueue + s.inProgress;
}
