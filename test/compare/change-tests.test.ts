import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ChangeTests, metricKey, type TestedChange } from '../../src/compare/change-tests.js';
import type { Summary } from '../../src/report/summary.js';
import { parseThresholds, type Threshold } from '../../src/report/threshold.js';
import { fixture } from './fixtures/compare-fixture.js';

/*
 * Which changes Holm's correction counts (change-tests.ts `asksNothing`): a change with nothing on
 * either side, or whose values agree and whose resamples never move, asks no question and is left
 * out of its family's count; every other resampled change is counted. rate(429) without an op is
 * resampled from the per-second windows (`r429` over `requests`), so its windows are laid by hand.
 */
const STEADY = fixture(fileURLToPath(new URL('./fixtures/steady-load.summary.json', import.meta.url)));
const SETTINGS = { level: 0.95, resamples: 400, seed: 1, jobNoise: 0.05 };

function threshold(expression: string): Threshold {
  const [t] = parseThresholds([{ expression: `${expression} >= 0`, where: 'test' }]);
  if (!t) throw new Error(expression);
  return { ...t, expression };
}

const RATE_429 = threshold('rate(429)');
const P50_RUN = threshold('p50(run)');

/**
 * The steady run with `count429` 429s in the value (operation `run`'s outcomes) and the per-second
 * 429s given: `'all'` answers every request of every second 429, a number answers every request
 * of that one second 429.
 */
function with429(count429: number, seconds: 'all' | 'none' | number): Summary {
  const s = structuredClone(STEADY);
  const requests = s.series.requests;
  s.series.r429 = requests.map((n, i) => (seconds === 'all' || seconds === i ? n : 0));
  const run = s.operations.run;
  if (!run) throw new Error('the steady run has a run operation');
  const ok = run.outcomes['2xx'];
  if (!ok) throw new Error('the steady run has 2xx answers');
  run.outcomes['429'] = { ...ok, count: count429 };
  return s;
}

function tested(b: Summary, c: Summary, table: readonly Threshold[], gates: readonly Threshold[] = []) {
  const tests = new ChangeTests(b, c, SETTINGS, { table, gates });
  return (t: Threshold): TestedChange => tests.of(t);
}

const requestsOf = (s: Summary): number => Object.values(s.operations).reduce((n, o) => n + o.requests, 0);

describe('changes that ask no question are not counted in the correction', () => {
  it('no 429 on either side: rate(429) is resampled, yet left out; p50(run) is corrected alone', () => {
    const of = tested(STEADY, STEADY, [RATE_429, P50_RUN]);
    const rate = of(RATE_429);
    expect(rate).toMatchObject({ baseline: 0, current: 0 });
    expect(rate.significance?.ci).toEqual([0, 0]);
    expect(rate.significance?.corrected).toEqual({ family: 'table', tests: 1, p: 1, confidence: 0 });
    expect(of(P50_RUN).significance?.corrected.tests).toBe(1);
  });

  it('every request a 429 in every second on both sides: the same value, resamples that never move, left out', () => {
    const all = with429(requestsOf(STEADY), 'all');
    const of = tested(all, all, [RATE_429, P50_RUN]);
    const rate = of(RATE_429);
    expect(rate).toMatchObject({ baseline: 1, current: 1 });
    expect(rate.significance?.ci).toEqual([0, 0]);
    expect(rate.significance?.corrected).toMatchObject({ tests: 1, p: 1 });
    expect(of(P50_RUN).significance?.corrected.tests).toBe(1);
  });

  it('429s appear in one second of the current run: a change from 0, counted though one interval end is 0', () => {
    const c = with429(122, 4);
    const of = tested(STEADY, c, [RATE_429, P50_RUN]);
    const rate = of(RATE_429);
    expect(rate.baseline).toBe(0);
    expect(rate.current).toBeCloseTo(122 / requestsOf(STEADY), 12);
    // Most resamples pick second 4 at least once; some never do, and move nothing.
    expect(rate.significance?.ci?.[0]).toBe(0);
    expect(rate.significance?.ci?.[1]).toBeGreaterThan(0);
    expect(rate.significance?.corrected.tests).toBe(2);
    expect(of(P50_RUN).significance?.corrected.tests).toBe(2);
  });

  it('429s gone from the current run: a change to 0, counted though the upper interval end is 0', () => {
    const b = with429(122, 4);
    const of = tested(b, STEADY, [RATE_429, P50_RUN]);
    const rate = of(RATE_429);
    expect(rate.current).toBe(0);
    expect(rate.significance?.ci?.[0]).toBeLessThan(0);
    expect(rate.significance?.ci?.[1]).toBe(0);
    expect(rate.significance?.corrected.tests).toBe(2);
  });

  it('values that differ are a question even when the windows never move (hand-laid: the value and its windows disagree)', () => {
    // Both runs' windows answer every request 429, so every resample is 1 on both sides; the
    // values (from the operations) are 1/2 and 1/4 of the requests: a change, counted.
    const total = requestsOf(STEADY);
    const of = tested(with429(total / 2, 'all'), with429(total / 4, 'all'), [RATE_429, P50_RUN]);
    const rate = of(RATE_429);
    expect(rate).toMatchObject({ baseline: 0.5, current: 0.25 });
    expect(rate.significance?.ci).toEqual([0, 0]);
    expect(rate.significance?.corrected.tests).toBe(2);
    expect(of(P50_RUN).significance?.corrected.tests).toBe(2);
  });

  it('the same value whose resamples move (hand-laid: the windows disagree with the value) is counted, either way', () => {
    // Both values are 122 429s of the same requests; only one run's windows hold them (second 4).
    const none = with429(122, 'none');
    const one = with429(122, 4);
    const up = tested(none, one, [RATE_429, P50_RUN])(RATE_429);
    expect(up.baseline).toBe(up.current);
    expect(up.significance?.ci?.[0]).toBe(0);
    expect(up.significance?.ci?.[1]).toBeGreaterThan(0);
    expect(up.significance?.corrected.tests).toBe(2);
    const down = tested(one, none, [RATE_429, P50_RUN])(RATE_429);
    expect(down.baseline).toBe(down.current);
    expect(down.significance?.ci?.[0]).toBeLessThan(0);
    expect(down.significance?.ci?.[1]).toBe(0);
    expect(down.significance?.corrected.tests).toBe(2);
  });

  it('a gated metric is corrected in the gates family, apart from the table', () => {
    const c = with429(122, 4);
    const of = tested(STEADY, c, [RATE_429, P50_RUN], [P50_RUN]);
    expect(of(P50_RUN).significance?.corrected).toMatchObject({ family: 'gates', tests: 1 });
    expect(of(RATE_429).significance?.corrected).toMatchObject({ family: 'table', tests: 1 });
  });
});

describe('metricKey', () => {
  it('names the same tags in any order alike, whatever order the threshold holds them in', () => {
    const t = threshold('p99(run{status=2xx,from=sent})');
    const a = metricKey({ ...t, tags: { status: '2xx', from: 'sent' } });
    const b = metricKey({ ...t, tags: { from: 'sent', status: '2xx' } });
    expect(a).toBe(b);
    expect(a).toBe('p99(run{from=sent,status=2xx})');
  });
});
