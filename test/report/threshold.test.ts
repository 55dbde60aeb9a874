import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { evaluateThresholds } from '../../src/report/threshold-evaluation.js';
import { parseThresholds } from '../../src/report/threshold.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.where}: ${i.message}`);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('threshold expressions', () => {
  it('parses every documented form, with units converted to the metric’s own', () => {
    const t = parseThresholds([
      'p99(run) < 500ms',
      'p95(e2e{status=COMPLETED}) < 30s',
      'p99(delayTime) < 2s',
      'rate(429) < 1%',
      'rate(failed) < 0.5%',
      'count(violations) == 0',
      'count(violation:transition.*) == 0',
      'count(dropped) == 0',
      'max(status) <= 1.5m',
      'violations == 0',
      'rate(errors{op=runsync}) <= 0.25',
      'rps(requests) > 1',
    ]);
    expect(t.map((x) => [x.aggregation.kind, x.metric, x.target, x.unit])).toEqual([
      ['percentile', 'run', 500, 'ms'],
      ['percentile', 'e2e', 30_000, 'ms'],
      ['percentile', 'delayTime', 2000, 'ms'],
      ['rate', '429', 0.01, 'ratio'],
      ['rate', 'failed', 0.005, 'ratio'],
      ['count', 'violations', 0, 'count'],
      ['count', 'violation:transition.*', 0, 'count'],
      ['count', 'dropped', 0, 'count'],
      ['percentile', 'status', 90_000, 'ms'],
      ['count', 'violations', 0, 'count'],
      ['rate', 'errors', 0.25, 'ratio'],
      ['rps', 'requests', 1, 'rps'],
    ]);
    expect(t[1]?.tags).toEqual({ status: 'COMPLETED' });
  });

  it('a mistyped metric is a ConfigError naming the expression and suggesting the closest metric', () => {
    const issues = issuesOf(() =>
      parseThresholds([{ expression: 'p99(rnu) < 500ms', where: '--threshold' }]),
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(
      /^--threshold: "p99\(rnu\) < 500ms": unknown metric "rnu"; did you mean "run"\?/,
    );
  });

  it('reports every bad expression at once, each with what is wrong', () => {
    const issues = issuesOf(() =>
      parseThresholds([
        'p99(run) < 500ms',
        'p99(delaytime) < 2s',
        'rate(429) < 5s',
        'p99(run) < 1%',
        'p99(violations) == 0',
        'p95(e2e{status=DONE}) < 1s',
        'p99(run) 500ms',
        'pp99(run) < 1s',
        'rate(429) < 2',
        'p99(run{colour=red}) < 1s',
      ]),
    );
    expect(issues).toHaveLength(9);
    expect(issues.join('\n')).toMatchInlineSnapshot(`
      "threshold: "p99(delaytime) < 2s": unknown metric "delaytime"; did you mean "delayTime"? (known: run, runsync, status, status-sync, stream, cancel, retry, purge-queue, health, openai, requests, StartPod, CreateEndpoint, latency, e2e, delayTime, executionTime, firstChunk, 429, 2xx, 4xx, 5xx, errors, completed, failed, cancelled, timed_out, lost, jobs, unfinished, retried, dropped, webhooks, violations, scaleUpLag, drainTime, coldStartShare, peakWorkers, meanWorkers, workerSeconds, cost, costPer1kJobs, ttft, itl, tpot, outputTokens, goodput, violation:<id or glob>)
      threshold: "rate(429) < 5s": a rate is compared with a percentage (1%) or a fraction (0.01), not "s"
      threshold: "p99(run) < 1%": unit "%" is not a time unit; use us (or µs), ms, s or m
      threshold: "p99(violations) == 0": p99() does not apply to "violations"; use count
      threshold: "p95(e2e{status=DONE}) < 1s": tag status=DONE is not one of COMPLETED, FAILED, CANCELLED, TIMED_OUT
      threshold: "p99(run) 500ms": expected "<aggregation>(<metric>) <comparator> <value>", e.g. p99(run) < 500ms
      threshold: "pp99(run) < 1s": unknown aggregation "pp99"; did you mean "p99"? (use pNN, max, min, mean, count, rate or rps)
      threshold: "rate(429) < 2": a plain rate is a fraction between 0 and 1, and 2 is ambiguous: write "2%" (2 percent)
      threshold: "p99(run{colour=red}) < 1s": "run" has no tag "colour" (tags: status, from)"
    `);
  });

  it('evaluates against a summary; values are in the metric’s unit; no data fails', () => {
    const s = fixtureSummary();
    const results = evaluateThresholds(
      parseThresholds([
        'count(violations) == 7',
        'count(violation:transition.*) == 3',
        'count(violation:server.error) == 2',
        'count(violations{severity=warning}) == 1',
        'rate(429) < 1%',
        'count(429) == 9',
        'rate(failed) < 0.5%',
        'p99(cancel) < 10ms',
        'p99(StartPod) < 1s',
        'count(status{status=5xx}) == 1',
        'count(lost) == 1',
        'p50(e2e) > 0',
      ]),
      s,
    );
    expect(
      results.map((r) => [
        r.expression,
        r.value === null ? null : Math.round(r.value * 10_000) / 10_000,
        r.ok,
      ]),
    ).toEqual([
      ['count(violations) == 7', 7, true],
      ['count(violation:transition.*) == 3', 3, true],
      ['count(violation:server.error) == 2', 2, true],
      ['count(violations{severity=warning}) == 1', 1, true],
      ['rate(429) < 1%', 0.0272, false],
      ['count(429) == 9', 9, true],
      ['rate(failed) < 0.5%', 0.0909, false],
      ['p99(cancel) < 10ms', 5.003, true], // HDR reports the top of the 4 µs bucket holding 5 ms
      ['p99(StartPod) < 1s', null, false],
      ['count(status{status=5xx}) == 1', 1, true],
      ['count(lost) == 1', 1, true],
      ['p50(e2e) > 0', 1204.223, true],
    ]);
  });
});

describe('thresholds of a run with a warm-up', () => {
  it('rps divides by the measured time: the warm-up’s requests are not counted, so neither is its time', () => {
    const s = fixtureSummary();
    const requests = s.operations.status?.requests ?? 0;
    const [whole] = evaluateThresholds(parseThresholds(['rps(status) > 0']), s);
    expect(whole?.value).toBeCloseTo(requests / (s.run.durationMs / 1000), 6);
    const [measured] = evaluateThresholds(parseThresholds(['rps(status) > 0']), {
      ...s,
      warmup: { ms: s.run.durationMs / 2, requests: 10, dropped: 0 },
    });
    expect(measured?.value).toBeCloseTo(requests / (s.run.durationMs / 2000), 6);
  });
});
