import type { ExchangeRecord } from './record.js';

/** The counts of one `/health` answer (SPEC "GET /health"), every one a whole number of at least 0. */
export interface HealthCounts {
  readonly inQueue: number;
  readonly inProgress: number;
  readonly idle: number;
  readonly running: number;
  /** Absent when the server does not report them: some do not (the SPEC's table has neither). */
  readonly initializing?: number;
  readonly throttled?: number;
  /** Cumulative counters; absent when missing or not a count (the schema check reports that body). */
  readonly completed?: number;
  readonly failed?: number;
  readonly retried?: number;
}

/**
 * One usable `/health` answer: the one reading of a `/health` body that the checks, the metrics,
 * the exports and the capacity search all take (DESIGN rule 9), with the exchange it came from so
 * each consumer places it in time as it needs.
 */
export interface HealthReading extends HealthCounts {
  readonly record: ExchangeRecord;
}

/** Why an exchange gave no reading. */
export type HealthRejection =
  /** Not a `/health` exchange at all. */
  | 'not-health'
  /** No answer, or one whose body could not be read to its end. */
  | 'unanswered'
  /** Answered with a status other than 200: its body is an error, not the counts. */
  | 'status'
  /** The body has no `jobs` and `workers` objects. */
  | 'no-groups'
  /** A count in `jobs` or `workers` below zero (`field` names the first). */
  | 'negative'
  /** A gauge every consumer needs is absent (`field`). */
  | 'missing'
  /** A gauge every consumer needs is there but is not a whole number (`field`). */
  | 'not-a-count';

export type HealthRead =
  | { readonly ok: true; readonly reading: HealthReading }
  | {
      readonly ok: false;
      readonly reason: HealthRejection;
      readonly field?: string;
      readonly value?: unknown;
    };

type Group = Readonly<Record<string, unknown>>;
interface Groups {
  readonly jobs: Group;
  readonly workers: Group;
}

function groupOf(body: unknown, key: string): Group | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const g = (body as Group)[key];
  return typeof g === 'object' && g !== null && !Array.isArray(g) ? (g as Group) : undefined;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** A gauge every consumer needs: its count, or why the body gives none. */
function gauge(groups: Groups, g: keyof Groups, k: string): number | HealthRead {
  const v = groups[g][k];
  if (v === undefined) return { ok: false, reason: 'missing', field: `${g}.${k}` };
  return isCount(v) ? v : { ok: false, reason: 'not-a-count', field: `${g}.${k}`, value: v };
}

/** An optional counter as a property to spread: none unless it is a count. */
function counted<K extends keyof HealthCounts>(key: K, v: unknown): Partial<Record<K, number>> {
  return isCount(v) ? ({ [key]: v } as Partial<Record<K, number>>) : {};
}

/** The first count below zero, in body order, jobs first: any of them makes the body unusable. */
function firstNegative(groups: Groups): [string, number] | undefined {
  for (const name of ['jobs', 'workers'] as const)
    for (const [k, v] of Object.entries(groups[name]))
      if (typeof v === 'number' && v < 0) return [`${name}.${k}`, v];
  return undefined;
}

/**
 * Reads a `/health` exchange. Usable is a 200 answer whose `jobs` and `workers` hold no negative
 * number and carry the four gauges as whole numbers; the other counters are taken when they are
 * counts and left out otherwise. A rejection says why, naming the field, so the health check can
 * report a negative count from the same reading everything else skips.
 */
export function readHealth(r: ExchangeRecord): HealthRead {
  if (r.op !== 'health') return { ok: false, reason: 'not-health' };
  if (r.status === undefined || r.error !== undefined) return { ok: false, reason: 'unanswered' };
  if (r.status !== 200) return { ok: false, reason: 'status' };
  const jobs = groupOf(r.body, 'jobs');
  const workers = groupOf(r.body, 'workers');
  if (!jobs || !workers) return { ok: false, reason: 'no-groups' };
  const groups = { jobs, workers };
  const negative = firstNegative(groups);
  if (negative) return { ok: false, reason: 'negative', field: negative[0], value: negative[1] };
  const inQueue = gauge(groups, 'jobs', 'inQueue');
  if (typeof inQueue !== 'number') return inQueue;
  const inProgress = gauge(groups, 'jobs', 'inProgress');
  if (typeof inProgress !== 'number') return inProgress;
  const idle = gauge(groups, 'workers', 'idle');
  if (typeof idle !== 'number') return idle;
  const running = gauge(groups, 'workers', 'running');
  if (typeof running !== 'number') return running;
  const reading: HealthReading = {
    record: r,
    inQueue,
    inProgress,
    idle,
    running,
    ...counted('initializing', workers.initializing),
    ...counted('throttled', workers.throttled),
    ...counted('completed', jobs.completed),
    ...counted('failed', jobs.failed),
    ...counted('retried', jobs.retried),
  };
  return { ok: true, reading };
}

/** The reading of `r`, or undefined when it gives none (see `readHealth` for why not). */
export function healthReadingOf(r: ExchangeRecord): HealthReading | undefined {
  const read = readHealth(r);
  return read.ok ? read.reading : undefined;
}

/** Workers /health counted: idle, running and (when reported) initializing; throttled ones run nothing. */
export function workersOf(s: HealthCounts): number {
  return s.idle + s.running + (s.initializing ?? 0);
}

/** Jobs the endpoint holds: waiting plus running. */
export function jobsInSystem(s: HealthCounts): number {
  return s.inQueue + s.inProgress;
}

/**
 * Jobs the endpoint has finished, completed + failed, when it reports both: when it moves between
 * two reads, a worker ran a job in between.
 */
export function finishedOf(s: HealthCounts): number | undefined {
  return s.completed === undefined || s.failed === undefined ? undefined : s.completed + s.failed;
}
