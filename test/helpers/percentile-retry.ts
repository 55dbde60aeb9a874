import { parseThresholds } from '../../src/report/threshold.js';

/**
 * A run whose only failures are latency thresholds: no violation, every failed threshold a
 * percentile, max, min or mean (the threshold parser's `percentile` aggregation). On CI the
 * embedded emulator shares two cores with another test file, and one stall of it fails such a
 * threshold rightly (seen: p99(run) 709 ms and 529 ms against 500 ms in a few seconds' run).
 * Tests that run shipped scenarios as written give such a run one more try; a scenario that is
 * slow fails twice.
 */
export function failedOnlyOnPercentiles(s: {
  violations: readonly unknown[];
  thresholds: readonly { expression: string; ok: boolean }[];
}): boolean {
  const broken = parseThresholds(s.thresholds.filter((t) => !t.ok).map((t) => t.expression));
  return (
    s.violations.length === 0 && broken.length > 0 && broken.every((t) => t.aggregation.kind === 'percentile')
  );
}
