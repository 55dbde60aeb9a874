import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, RunRecord } from '../../src/core/record.js';
import { parseThresholds, type ThresholdSource } from '../../src/report/threshold.js';
import { LiveThresholds, type LiveAbort } from '../../src/session/live-thresholds.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * Issue 35 item 2: the session's live judge on per-second data. Each record that ends in a later
 * second completes the seconds before it; a threshold with abortOnFail stops the run once, and not
 * before its delayAbortEval.
 */

const START = 2_000_000;
const RUN: RunRecord = {
  v: 1,
  type: 'run',
  runId: 'r',
  scenario: 's',
  target: 'http://x',
  startedAtMs: START,
  ownsEndpoint: true,
};

let seq = 0;
function ex(intendedAt: number, latencyMs: number): ExchangeRecord {
  return {
    v: 1,
    type: 'exchange',
    seq: ++seq,
    op: 'run',
    method: 'POST',
    path: '/run',
    intendedAt,
    sentAt: intendedAt,
    endAt: intendedAt + latencyMs,
    reqBytes: 0,
    resBytes: 0,
    status: 200,
  };
}

/** Feeds `seconds` seconds of ten requests each, at `latency(second)` ms; returns the aborts. */
function play(sources: (string | ThresholdSource)[], seconds: number, latency: (sec: number) => number) {
  const aborts: LiveAbort[] = [];
  const metrics = new FoldedMetrics();
  const live = new LiveThresholds(parseThresholds(sources), (a) => aborts.push(a));
  metrics.add(RUN);
  live.start(START);
  const failingAt: string[][] = [];
  for (let k = 0; k < seconds; k++) {
    for (let i = 0; i < 10; i++) {
      const r = ex(k * 1000 + i * 10, latency(k));
      metrics.add(r);
      live.seen(metrics.secondSource(), Math.floor((START + r.endAt) / 1000));
    }
    failingAt.push(live.failing());
  }
  return { aborts, live, failingAt };
}

describe('LiveThresholds', () => {
  it('a windowed abortOnFail threshold stops the run once, when its first full window fails', () => {
    const { aborts, live, failingAt } = play(
      [{ expression: 'p99(run) < 100ms', windowMs: 2000, abortOnFail: true }],
      10,
      (k) => (k >= 4 ? 500 : 5),
    );
    // Second 4's answers end in second 4; second 5's first record completes it: window [3,4] fails.
    expect(aborts).toEqual([
      { threshold: 'p99(run) < 100ms over 2s', at: 5, value: expect.any(Number) as number, unit: 'ms' },
    ]);
    expect(aborts[0]?.value).toBeGreaterThan(400);
    expect(live.aborted?.at).toBe(5);
    expect(failingAt[4]).toEqual([]);
    expect(failingAt[5]).toEqual(['p99(run) < 100ms over 2s']);
  });

  it('waits for delayAbortEval, and never aborts a healthy run', () => {
    const late = play(
      [{ expression: 'p99(run) < 100ms', windowMs: 1000, abortOnFail: true, delayAbortEvalMs: 6000 }],
      10,
      (k) => (k === 2 || k >= 7 ? 500 : 5),
    );
    // Second 2 failed before the delay ran out: only the failure after it stops the run.
    expect(late.aborts.map((a) => a.at)).toEqual([8]);
    expect(late.failingAt[3]).toEqual(['p99(run) < 100ms over 1s']);
    const healthy = play(
      [{ expression: 'p99(run) < 100ms', windowMs: 2000, abortOnFail: true }, 'rate(429) < 1%'],
      10,
      () => 5,
    );
    expect(healthy.aborts).toEqual([]);
    expect(healthy.live.statuses()).toEqual([
      { expression: 'p99(run) < 100ms over 2s', ok: true, value: expect.any(Number) as number, unit: 'ms' },
      { expression: 'rate(429) < 1%', ok: true, value: 0, unit: 'ratio' },
    ]);
  });

  it('a whole-run abortOnFail threshold is judged on the run so far; other thresholds wait for the end', () => {
    const { aborts, live } = play(
      [{ expression: 'p50(run) < 100ms', abortOnFail: true }, 'count(violations) == 0', 'p99(e2e) < 1s'],
      12,
      (k) => (k >= 3 ? 500 : 5),
    );
    // Three fast seconds, then slow ones: at seconds 0-5 the median (the 30th of 60) is still fast;
    // with second 6 (judged at its end, t+7s) it is slow.
    expect(aborts.map((a) => a.threshold)).toEqual(['p50(run) < 100ms']);
    expect(aborts[0]?.at).toBe(7);
    expect(live.size).toBe(1);
  });
});
