import type { HealthCounts } from '../core/health-reading.js';
import type { WorkerSample, WorkerSampleColumns } from './scaling-data.js';

/** A `/health` reading as a sample of the scaling figures, at `atMs` (wall clock). */
export function workerSampleOf(h: HealthCounts, atMs: number): WorkerSample {
  return {
    atMs,
    idle: h.idle,
    running: h.running,
    initializing: h.initializing,
    throttled: h.throttled,
    inQueue: h.inQueue,
    inProgress: h.inProgress,
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
