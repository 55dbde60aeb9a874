/**
 * The finest step each job timing can have. The service reports delayTime and executionTime in
 * whole milliseconds, so the µs of their histograms' buckets are not measurement: reports show and
 * bin them at 1 ms. Timings jobstorm measures itself keep the histogram's 1 µs.
 */
export const TIMING_RESOLUTION_MS = {
  delayTime: 1,
  executionTime: 1,
  firstChunk: 0.001,
  e2e: 0.001,
} as const;

export type TimingName = keyof typeof TIMING_RESOLUTION_MS;
