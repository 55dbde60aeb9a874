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

/**
 * Checks that judge how long the service took to do something. In these tests the service is an
 * emulator on the same two cores (embedded in the run's own process, or in the test's): when the
 * run says jobstorm did not get the CPU it needed (generator-limited), the emulator's timers were
 * starved with it, and such a finding judges the host, as a latency bound does (seen under two CPU
 * hogs: `runsync answered after 8000 ms; wait was 5000 ms` while the process ran 7% of a core).
 */
const TIME_BOUND_CHECKS: ReadonlySet<string> = new Set([
  'lifecycle.runsync-wait-exceeded',
  'lifecycle.timeout-ignored',
  'lifecycle.timeout-early',
  'lifecycle.ttl-ignored',
  'lifecycle.retention-ignored',
  'lifecycle.timing-inconsistent',
  'webhook.retry-spacing',
  'scaling.stuck',
  'scaling.no-scale-down',
]);

function judgesViolations(expression: string): boolean {
  const [t] = parseThresholds([expression]);
  return t !== undefined && (t.metric === 'violations' || t.metric.startsWith('violation:'));
}

/**
 * What failed in a run apart from its latency bounds: each violation's id and every other failed
 * threshold. In a run jobstorm marked generator-limited, time-bound findings (TIME_BOUND_CHECKS)
 * are left out too, and so are thresholds on violations when those were all there were.
 */
export function failuresBesideLatency(s: {
  violations: readonly { id: string }[];
  thresholds: readonly { expression: string; ok: boolean }[];
  verdict?: { generatorLimited?: boolean };
}): string[] {
  const starved = s.verdict?.generatorLimited === true;
  const violations = s.violations.filter((v) => !(starved && TIME_BOUND_CHECKS.has(v.id)));
  const onlyStarved = violations.length === 0 && s.violations.length > 0;
  return [
    ...violations.map((v) => `violation ${v.id}`),
    ...s.thresholds
      .filter((t) => !t.ok && !isLatencyBound(t.expression) && !(onlyStarved && judgesViolations(t.expression)))
      .map((t) => `threshold ${t.expression}`),
  ];
}
