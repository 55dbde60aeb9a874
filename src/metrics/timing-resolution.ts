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

const COARSE = Object.entries(TIMING_RESOLUTION_MS).filter(([, ms]) => ms >= 1);
const COARSE_USE = new RegExp(`\\(\\s*(${COARSE.map(([name]) => name).join('|')})\\s*[{)\\[,]`);

/**
 * The finest step of the timing a metric or threshold expression reads (`p50(delayTime)`,
 * `delta(p99(executionTime{flow:a}))`): 1 for the service's whole-millisecond timings, 0 for any
 * other, so a value on delayTime prints `0ms` or `<1ms`, never the histogram's `0µs`.
 */
export function resolutionOfMetric(expression: string): number {
  const name = COARSE_USE.exec(expression)?.[1];
  return name === undefined ? 0 : TIMING_RESOLUTION_MS[name as TimingName];
}
