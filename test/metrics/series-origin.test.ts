import { describe, expect, it } from 'vitest';
import { PREFLIGHT_FLOW } from '../../src/core/record.js';
import { ex, runRecord } from '../check/records.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * Issue 47 item 5: a shard that waited 9 s at the barrier kept its preflight in its per-second
 * series, which then began 9 s before the common start ([0,2,0,0,0,0,0,0,0,19,36,…]), and the
 * merged series had a hole at its start. The series counts from time 0; what came before it
 * (the preflight, the wait) is counted in the run's totals, not as seconds of the run.
 */

const T = 1_795_849_987_096;

describe('the per-second series of a run whose preflight came 9 s before time 0', () => {
  const run = runRecord({ startedAtMs: T });
  const records = [
    run,
    ex('health', -9_120, 200, { jobs: {}, workers: {} }, { flow: PREFLIGHT_FLOW }),
    ex('status', -9_100, 404, undefined, { flow: PREFLIGHT_FLOW }),
    ex('health', 40, 200, { jobs: {}, workers: {} }),
    ex('status', 1_500, 404),
  ];

  it('starts at the second of time 0', () => {
    const m = new FoldedMetrics();
    for (const r of records) m.add(r);
    const series = m.toJSON().series;
    expect(series.startSec).toBe(Math.floor(T / 1000));
  });

  it('still counts the preflight in the run’s requests', () => {
    const m = new FoldedMetrics();
    for (const r of records) m.add(r);
    const ops = m.toJSON().operations;
    expect((ops.health?.requests ?? 0) + (ops.status?.requests ?? 0)).toBe(4);
  });

  it('with a warm-up too: the preflight is a warm-up request, but no second of the series', () => {
    const m = new FoldedMetrics({ warmupMs: 1000 });
    for (const r of records) m.add(r);
    expect(m.toJSON().series.startSec).toBe(Math.floor(T / 1000));
  });
});
