import { healthGauge } from './health-body.js';
import type { WorkerSample, WorkerSampleColumns } from './scaling-data.js';

/**
 * A `/health` answer as a sample, or undefined when it lacks a count the figures need (idle and
 * running workers, jobs in queue and in progress): a partial body is not read as zeros.
 */
export function workerSampleOf(body: unknown, atMs: number): WorkerSample | undefined {
  const idle = healthGauge(body, 'workers', 'idle');
  const running = healthGauge(body, 'workers', 'running');
  const inQueue = healthGauge(body, 'jobs', 'inQueue');
  const inProgress = healthGauge(body, 'jobs', 'inProgress');
  if (idle === undefined || running === undefined || inQueue === undefined || inProgress === undefined)
    return undefined;
  return {
    atMs,
    idle,
    running,
    initializing: healthGauge(body, 'workers', 'initializing'),
    throttled: healthGauge(body, 'workers', 'throttled'),
    inQueue,
    inProgress,
  };
}

/** Time order, and for samples at the same instant an order of their counts, so any merge order agrees. */
export function compareSamples(a: WorkerSample, b: WorkerSample): number {
  return (
    a.atMs - b.atMs ||
    a.idle - b.idle ||
    a.running - b.running ||
    (a.initializing ?? -1) - (b.initializing ?? -1) ||
    (a.throttled ?? -1) - (b.throttled ?? -1) ||
    a.inQueue - b.inQueue ||
    a.inProgress - b.inProgress
  );
}

/** Workers that cost money: idle, running and starting (throttled ones are not running). */
export function billedWorkers(s: WorkerSample): number {
  return s.idle + s.running + (s.initializing ?? 0);
}

/** Workers that can take a job now. */
export function readyWorkers(s: WorkerSample): number {
  return s.idle + s.running;
}

export function samplesToColumns(samples: readonly WorkerSample[]): WorkerSampleColumns {
  return {
    atMs: samples.map((s) => s.atMs),
    idle: samples.map((s) => s.idle),
    running: samples.map((s) => s.running),
    initializing: samples.map((s) => s.initializing ?? null),
    throttled: samples.map((s) => s.throttled ?? null),
    inQueue: samples.map((s) => s.inQueue),
    inProgress: samples.map((s) => s.inProgress),
  };
}

export function samplesFromColumns(c: WorkerSampleColumns): WorkerSample[] {
  return c.atMs.map((atMs, i) => ({
    atMs,
    idle: c.idle[i] ?? 0,
    running: c.running[i] ?? 0,
    initializing: c.initializing[i] ?? undefined,
    throttled: c.throttled[i] ?? undefined,
    inQueue: c.inQueue[i] ?? 0,
    inProgress: c.inProgress[i] ?? 0,
  }));
}
