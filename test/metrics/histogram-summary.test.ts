import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { mulberry32 } from '../../src/schedule/index.js';

/*
 * summaryMs gives, in one walk, what minMs, meanMs and percentileMs give one walk each (hdr's
 * getValueAtPercentile, its rounding of the count included): summaries depend on it being exact.
 */
describe('LatencyHistogram.summaryMs', () => {
  const levels = [0, 1, 50, 90, 95, 99, 99.9, 100];
  const shapes: Record<string, (r: () => number) => number> = {
    'loopback latencies': (r) => 0.05 + r() ** 4 * 30,
    'a heavy tail to minutes': (r) => 1 + r() ** 12 * 300_000,
    'two humps': (r) => (r() < 0.7 ? 2 + r() : 900 + r() * 50),
    'one value': () => 12.5,
  };
  for (const [name, draw] of Object.entries(shapes)) {
    for (const count of [1, 2, 3, 7, 100, 10_000]) {
      it(`${name}, ${String(count)} values`, () => {
        const r = mulberry32(count);
        const h = LatencyHistogram.create();
        for (let i = 0; i < count; i++) h.recordMs(draw(r));
        const s = h.summaryMs(levels);
        expect(s.min).toBe(h.minMs);
        expect(s.mean).toBeCloseTo(h.meanMs, 9);
        expect(s.at).toEqual(levels.map((p) => h.percentileMs(p)));
      });
    }
  }

  it('an empty histogram is all zeros', () => {
    expect(LatencyHistogram.create().summaryMs([50, 99])).toEqual({ min: 0, mean: 0, at: [0, 0] });
  });
});
