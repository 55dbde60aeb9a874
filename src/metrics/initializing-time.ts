import type { WorkerSample } from './scaling-data.js';

/*
 * When workers were initializing, read from the `/health` samples by the nearest one: each sample
 * speaks for the time up to halfway to its neighbours, so a start or an end between two samples is
 * off by half an interval either way rather than always late. One notion for the run-wide cold-start
 * share (scaling-figures.ts) and each job's own cold start inside its queue wait (ScalingTrack).
 */

/**
 * Samples in time order and, for the first `initBefore.length` of them, the initializing time from
 * the first sample up to each (ms). The samples are the caller's own array, not a copy.
 */
export interface InitSpan {
  readonly samples: readonly WorkerSample[];
  readonly initBefore: number[];
}

export function initializing(s: WorkerSample): boolean {
  return (s.initializing ?? 0) > 0;
}

/** A span over samples already in time order. */
export function initSpan(samples: readonly WorkerSample[]): InitSpan {
  const span: InitSpan = { samples, initBefore: [] };
  extendInitSpan(span);
  return span;
}

/** Brings `initBefore` up to every sample, after samples were appended in time order. */
export function extendInitSpan(span: InitSpan): void {
  const { samples, initBefore } = span;
  for (let i = initBefore.length; i < samples.length; i++) {
    const [prev, cur] = [samples[i - 1], samples[i] as WorkerSample];
    if (prev === undefined) {
      initBefore.push(0);
      continue;
    }
    const half = (cur.atMs - prev.atMs) / 2;
    initBefore.push(
      (initBefore[i - 1] ?? 0) + (initializing(prev) ? half : 0) + (initializing(cur) ? half : 0),
    );
  }
}

/** Initializing time from the first sample to `t`, clamped to the sampled span (ms). */
export function initUpTo(span: InitSpan, t: number): number {
  const s = span.samples;
  if (t <= (s[0]?.atMs ?? 0)) return 0;
  let lo = 0;
  let hi = s.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if ((s[mid]?.atMs ?? 0) <= t) lo = mid;
    else hi = mid - 1;
  }
  const at = s[lo] as WorkerSample;
  const base = span.initBefore[lo] ?? 0;
  const next = s[lo + 1];
  if (!next) return base;
  const mid = (at.atMs + next.atMs) / 2;
  if (t <= mid) return base + (initializing(at) ? t - at.atMs : 0);
  return base + (initializing(at) ? mid - at.atMs : 0) + (initializing(next) ? t - mid : 0);
}

/**
 * Initializing time within [from, to] (ms), read while the run goes on: inside the sampled span as
 * `initUpTo` reads it, and beyond its ends by the sample nearest them, the first before it and the
 * newest after it (no later sample exists yet to speak for that time). 0 without samples.
 */
export function initializingWithin(span: InitSpan, from: number, to: number): number {
  const first = span.samples[0];
  const last = span.samples.at(-1);
  if (first === undefined || last === undefined || to <= from) return 0;
  let ms = initUpTo(span, Math.min(to, last.atMs)) - initUpTo(span, Math.max(from, first.atMs));
  ms = Math.max(0, ms);
  if (from < first.atMs && initializing(first)) ms += Math.min(to, first.atMs) - from;
  if (to > last.atMs && initializing(last)) ms += to - Math.max(from, last.atMs);
  return Math.min(ms, to - from);
}
