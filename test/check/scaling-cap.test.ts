import { describe, expect, it } from 'vitest';
import { scalingCheck } from '../../src/check/checks/scaling-check.js';
import { runRecord } from './records.js';
import { health } from './scaling-outcome.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * The scaling check keeps its /health reads until the end of the run, so it keeps a bounded number
 * (enough for hours of one-a-second reads): a longer run is judged on its first ones.
 */

const CAP = 50_000;

function aboveMax(reads: number): { judged: number; found: number } {
  const c = new FoldedChecker(runRecord({ scaling: { workersMax: 1, source: 'scenario' } }), {
    checks: [scalingCheck()],
  });
  for (let i = 0; i < reads; i++) c.add(health(i * 10, { idle: i === reads - 1 ? 2 : 1 }));
  const result = c.finish();
  return { judged: result.coverage['scaling.above-max'] ?? 0, found: result.total };
}

describe('the /health reads the scaling check keeps', () => {
  it(`are the first ${String(CAP)}: a read past them is not judged`, () => {
    expect(aboveMax(CAP)).toEqual({ judged: CAP, found: 1 });
    expect(aboveMax(CAP + 1)).toEqual({ judged: CAP, found: 0 });
  });
});
