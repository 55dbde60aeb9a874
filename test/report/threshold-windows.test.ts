import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import type { ExchangeRecord, JobstormRecord, RunRecord } from '../../src/core/record.js';
import { SparseHistogram } from '../../src/metrics/sparse-histogram.js';
import { markdownReporter } from '../../src/report/markdown-reporter.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { parseSummary } from '../../src/report/summary-schema.js';
import type { Summary, ThresholdResult } from '../../src/report/summary.js';
import { terminalReporter } from '../../src/report/terminal-reporter.js';
import { parseThresholds, type ThresholdSource } from '../../src/report/threshold.js';
import { withThresholds } from '../../src/report/summary-thresholds.js';
import { junitReporter } from '../../src/report/junit-reporter.js';
import { chartSpecs } from '../../src/report/chart-data.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * Issue 35 item 1: a threshold held over every window of the per-second series. Records are laid
 * out by hand so each second's contents are known: the run starts on a whole second, so t+Ns is
 * the record's second.
 */

const START = 1_000_000;

function runRecord(shard?: string): RunRecord {
  return {
    v: 1,
    type: 'run',
    runId: 'r',
    scenario: 's',
    target: 'http://x',
    startedAtMs: START,
    ownsEndpoint: true,
    ...(shard ? { shard } : {}),
  };
}

let seq = 0;
function ex(
  op: string,
  intendedAt: number,
  latencyMs: number,
  status: number | 'error' = 200,
): ExchangeRecord {
  return {
    v: 1,
    type: 'exchange',
    seq: ++seq,
    op,
    method: 'GET',
    path: '/',
    intendedAt,
    sentAt: intendedAt,
    endAt: intendedAt + latencyMs,
    reqBytes: 0,
    resBytes: 0,
    ...(status === 'error' ? { error: { kind: 'reset' } } : { status }),
  } as ExchangeRecord;
}

/** Ten seconds of 100 `/run` requests each at 10 ms, but five of second 5 take 900 ms. */
function collapseRecords(): ExchangeRecord[] {
  const out: ExchangeRecord[] = [];
  for (let k = 0; k < 10; k++) {
    for (let i = 0; i < 100; i++) {
      const slow = k === 5 && i < 5;
      out.push(slow ? ex('run', 5000 + i, 900) : ex('run', k * 1000 + 100 + i * 3, 10));
    }
  }
  return out;
}

function summaryOf(records: readonly JobstormRecord[], sources: (string | ThresholdSource)[]): Summary {
  const metrics = new FoldedMetrics();
  const run = records.find((r): r is RunRecord => r.type === 'run') ?? runRecord();
  for (const r of records) metrics.add(r);
  return buildSummary({ run, metrics, thresholds: parseThresholds(sources), durationMs: 10_000 });
}

function only(s: Summary): ThresholdResult {
  const t = s.thresholds[0];
  if (!t) throw new Error('no threshold');
  return t;
}

describe('windowed threshold syntax', () => {
  it('reads "over <duration>" on the expression and the object form, which writes it in', () => {
    const [cli, object, minutes] = parseThresholds([
      'p99(run) < 500ms over 30s',
      { expression: 'p99(runsync) < 1s', windowMs: 5000, abortOnFail: true, delayAbortEvalMs: 10_000 },
      'rate(errors) < 1% over 2m',
    ]);
    expect(cli).toMatchObject({ expression: 'p99(run) < 500ms over 30s', windowS: 30, target: 500 });
    expect(cli?.abortOnFail).toBeUndefined();
    expect(object).toMatchObject({
      expression: 'p99(runsync) < 1s over 5s',
      windowS: 5,
      abortOnFail: true,
      delayAbortEvalMs: 10_000,
    });
    expect(minutes).toMatchObject({ windowS: 120, metric: 'errors' });
    // A whole-run threshold with abortOnFail is judged live on the run so far.
    expect(parseThresholds([{ expression: 'rate(429) < 1%', abortOnFail: true }])[0]).toMatchObject({
      abortOnFail: true,
    });
    expect(parseThresholds(['p99(run) < 500ms'])[0]?.windowS).toBeUndefined();
  });

  it.each([
    ['p99(run) < 500ms over 500ms', 'whole seconds'],
    ['p99(run) < 500ms over 1.5s', 'whole seconds'],
    ['p99(run) < 500ms over soon', 'cannot read the window'],
    ['p99(e2e) < 5s over 10s', 'job timings'],
    ['count(violations) == 0 over 10s', 'violations'],
    ['mean(run) < 5ms over 10s', 'mean'],
    ['p99(run{from=sent}) < 5ms over 10s', 'from=sent'],
    ['p99(run{status=2xx}) < 5ms over 10s', 'status'],
    ['count(retried) < 5 over 10s', 'retried'],
  ])('refuses %s', (expression, why) => {
    expect(() => parseThresholds([{ expression, where: 'x' }])).toThrow(ConfigError);
    expect(() => parseThresholds([expression])).toThrow(why);
  });

  it('refuses a window given twice, delayAbortEval without abortOnFail, and a live judge it cannot feed', () => {
    expect(() => parseThresholds([{ expression: 'p99(run) < 1s over 5s', windowMs: 5000 }])).toThrow('twice');
    expect(() => parseThresholds([{ expression: 'p99(run) < 1s', delayAbortEvalMs: 1000 }])).toThrow(
      'abortOnFail',
    );
    expect(() => parseThresholds([{ expression: 'p99(e2e) < 1s', abortOnFail: true }])).toThrow('live');
  });
});

describe('windowed threshold evaluation', () => {
  it('finds the worst window, when, and how many failed, while the whole run holds', () => {
    const s = summaryOf(
      [runRecord(), ...collapseRecords()],
      ['p99(run) < 500ms', 'p99(run) < 500ms over 2s', 'p99(run) < 500ms over 20s'],
    );
    const [whole, windowed, long] = s.thresholds;
    expect(whole).toMatchObject({ ok: true });
    expect(windowed).toMatchObject({ ok: false, unit: 'ms' });
    // Windows [4,5] and [5,6] hold second 5's five slow answers: their p99 is one of them.
    expect(windowed?.window).toMatchObject({ seconds: 2, judged: 9, failed: 2, failing: [[4, 7]] });
    expect(windowed?.window?.worst?.at).toBe(4);
    expect(windowed?.value).toBeGreaterThan(880);
    expect(windowed?.wholeRun?.ok).toBe(true);
    expect(windowed?.wholeRun?.value).toBeLessThan(20);
    // A window longer than the run: judged once, over all of it.
    expect(long?.window).toMatchObject({ judged: 1, failed: 0, worst: { at: 0 } });
    expect(long?.ok).toBe(true);
    expect(s.verdict.reasons.join(' ')).toContain('p99(run) < 500ms over 2s');
  });

  it('the reports say the worst window, when, how many failed, and that the whole run held', () => {
    const s = summaryOf([runRecord(), ...collapseRecords()], ['p99(run) < 500ms over 2s']);
    const line = 'worst 2s window from t+4s';
    for (const text of [terminalReporter.render(s), markdownReporter.render(s), junitReporter.render(s)]) {
      expect(text).toContain(line);
      expect(text).toContain('2 of 9 windows failed');
      expect(text).toContain('holds over the whole run, fails in a window');
    }
    const latency = chartSpecs(s).find((c) => c.id === 'latency');
    expect(latency?.bands).toEqual([{ from: 4, to: 7, label: 'p99(run) < 500ms over 2s' }]);
    // summary.json keeps it, and a re-judged summary reads the window back from the expression.
    const back = parseSummary(JSON.parse(JSON.stringify(s)) as unknown, 'summary.json');
    expect(only(back).window).toEqual(only(s).window);
    expect(only(withThresholds(back, []))).toEqual(only(s));
  });

  it('skips windows with nothing to judge, and fails when no window had any', () => {
    const records = [runRecord(), ex('run', 100, 10), ex('run', 5100, 10, 429)];
    const s = summaryOf(records, ['rate(429) < 50% over 1s', 'p99(status) < 1s over 2s']);
    const [rate, none] = s.thresholds;
    // Seconds 1-4 have no request: no rate to judge there.
    expect(rate?.window).toMatchObject({ judged: 2, failed: 1, worst: { at: 5, value: 1 } });
    expect(none).toMatchObject({ ok: false, value: null, window: { judged: 0, worst: null } });
  });

  it('percentiles read answers only, as the whole-run ones do; counts and rates read every outcome', () => {
    const records = [runRecord(), ex('run', 100, 5), ex('run', 200, 5), ex('run', 300, 600, 'error')];
    const five = new SparseHistogram();
    five.recordMs(5);
    const s = summaryOf(records, [
      'max(run) < 10ms over 1s',
      'count(run) == 3 over 1s',
      'rate(errors) > 33% over 1s',
      'count(run{status=error}) == 1 over 1s',
    ]);
    expect(s.thresholds.map((t) => [t.ok, t.value])).toEqual([
      [true, five.percentileMs(100)],
      [true, 3],
      [true, 1 / 3],
      [true, 1],
    ]);
  });

  it('windows start after the warm-up', () => {
    const metrics = new FoldedMetrics({ warmupMs: 3000 });
    for (const r of [runRecord(), ...collapseRecords()]) metrics.add(r);
    const s = buildSummary({
      run: runRecord(),
      metrics,
      thresholds: parseThresholds(['count(run) >= 100 over 1s']),
    });
    // Seconds 3-9 only: seven windows of one second.
    expect(only(s).window).toMatchObject({ judged: 7, failed: 0 });
  });

  it('a window longer than what is left after the warm-up is judged once, over what is left', () => {
    // Ten seconds, warm-up to second 8: two measured seconds, shorter than the 5 s window.
    const metrics = new FoldedMetrics({ warmupMs: 8000 });
    for (const r of [runRecord(), ...collapseRecords()]) metrics.add(r);
    const s = buildSummary({
      run: runRecord(),
      metrics,
      thresholds: parseThresholds(['count(run) >= 150 over 5s']),
    });
    expect(only(s)).toMatchObject({ ok: true, value: 200 });
    expect(only(s).window).toMatchObject({ judged: 1, failed: 0, worst: { at: 8, value: 200 } });
  });
});

describe('exactly on target, for each operator', () => {
  // Second 0: 100 requests, one 429 (rate exactly 1%), every answer at 63 µs (a bucket's own value).
  const records = [
    runRecord(),
    ...Array.from({ length: 100 }, (_, i) => ex('run', 100 + i, 0.063, i === 0 ? 429 : 200)),
  ];
  const exact = SparseHistogram.bucketMs(63);

  it.each([
    ['<', false],
    ['<=', true],
    ['>', false],
    ['>=', true],
    ['==', true],
    ['!=', false],
  ])('%s', (op, holds) => {
    const s = summaryOf(records, [
      `count(run) ${op} 100 over 1s`,
      `rate(429) ${op} 1% over 1s`,
      `p99(run) ${op} ${String(exact * 1000)}us over 1s`,
      `rps(run) ${op} 100 over 1s`,
    ]);
    expect(exact).toBe(0.063);
    expect(s.thresholds.map((t) => [t.expression, t.ok])).toEqual(
      s.thresholds.map((t) => [t.expression, holds]),
    );
  });
});

describe('windows merge exactly across shards', () => {
  it('two shards merged give the windows of one process seeing every record', () => {
    const all = collapseRecords();
    const sources = ['p99(run) < 500ms over 2s', 'rate(429) < 1% over 3s', 'rps(run) > 90 over 2s'];
    const whole = summaryOf([runRecord(), ...all], sources);
    const one = summaryOf([runRecord('1/2'), ...all.filter((_, i) => i % 2 === 0)], sources);
    const two = summaryOf([runRecord('2/2'), ...all.filter((_, i) => i % 2 === 1)], sources);
    // Each shard alone sees half the requests: its windows differ from the run's.
    expect(whole.thresholds[2]?.ok).toBe(true);
    expect(one.thresholds[2]?.ok).toBe(false);
    const merged = mergeSummaries([one, two]);
    expect(merged.thresholds).toEqual(whole.thresholds);
    expect(mergeSummaries([two, one]).thresholds).toEqual(whole.thresholds);
  });
});
