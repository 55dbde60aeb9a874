import { parseThresholds } from '../../src/report/threshold.js';

/**
 * A latency bound (`p99(run) < 500ms`; max, min and mean too: the threshold parser's `percentile`
 * aggregation). In a test that runs a real process on real time, such a bound judges the host as
 * much as the code: two cores shared with other test files stall the embedded emulator now and
 * then, and the bound then fails rightly (seen: p99(run) 525 ms, 709 ms against 500 ms). Those
 * tests assert what does not depend on the host: the run finished, nothing else failed, and the
 * exit code follows the thresholds as judged.
 */
export function isLatencyBound(expression: string): boolean {
  const [t] = parseThresholds([expression]);
  return t?.aggregation.kind === 'percentile';
}

/** What failed in a run apart from its latency bounds: each violation's id and every other failed threshold. */
export function failuresBesideLatency(s: {
  violations: readonly { id: string }[];
  thresholds: readonly { expression: string; ok: boolean }[];
}): string[] {
  return [
    ...s.violations.map((v) => `violation ${v.id}`),
    ...s.thresholds
      .filter((t) => !t.ok && !isLatencyBound(t.expression))
      .map((t) => `threshold ${t.expression}`),
  ];
}
