import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import type { GeneratorRecord } from '../../src/core/record.js';
import { GeneratorWatch, type GeneratorSample } from '../../src/runner/generator-watch.js';

/*
 * Issue 35 item 4: a single second whose arrivals left late because of jobstorm is marked
 * generator-limited on its own (a cold start's second 0), on an injected clock; a second with a
 * few late arrivals (timer jitter) or a late loop with arrivals on time (a GC pause) is not.
 */

const BUSY: GeneratorSample = { busy: 0.97, loopDelayP99Ms: 30 };
const QUIET: GeneratorSample = { busy: 0.2, loopDelayP99Ms: 0.5 };

function play(seconds: { sample: GeneratorSample; late: number; onTime: number }[]): {
  records: GeneratorRecord[];
  warnings: string[];
} {
  const clock = new ManualClock();
  const records: GeneratorRecord[] = [];
  const warnings: string[] = [];
  let i = 0;
  let seq = 0;
  const watch = new GeneratorWatch(
    clock,
    { sample: () => seconds[Math.min(i++, seconds.length - 1)]?.sample ?? QUIET, close: () => undefined },
    (r) => records.push(r),
    () => ++seq,
    (m) => warnings.push(m),
  );
  for (const s of seconds) {
    for (let n = 0; n < s.late; n++) watch.arrival(80);
    for (let n = 0; n < s.onTime; n++) watch.arrival(0.5);
    clock.advance(1000);
  }
  watch.close();
  return { records, warnings };
}

describe('a single second of late arrivals', () => {
  it('second 0 of a cold start, its arrivals late while the loop was busy, is marked alone', () => {
    const { records, warnings } = play([
      { sample: BUSY, late: 1500, onTime: 2500 },
      { sample: QUIET, late: 0, onTime: 4000 },
      { sample: QUIET, late: 0, onTime: 4000 },
    ]);
    expect(records).toHaveLength(1);
    // A stretch runs to the first tick on time again, as every stretch does (see generator-watch.test.ts).
    expect(records[0]).toMatchObject({ type: 'generator', at: 0, durationMs: 2000, latenessP99Ms: 80 });
    expect(warnings).toHaveLength(1);
  });

  it('one late second mid-run, its loop busy with jobstorm’s own work, is marked at that second', () => {
    const { records } = play([
      { sample: QUIET, late: 0, onTime: 100 },
      { sample: QUIET, late: 0, onTime: 100 },
      { sample: { busy: 0.95, loopDelayP99Ms: 4 }, late: 20, onTime: 80 },
      { sample: QUIET, late: 0, onTime: 100 },
    ]);
    expect(records.map((r) => [r.at, r.durationMs])).toEqual([[2000, 2000]]);
  });

  it('a few late arrivals (timer jitter), or late ones while the loop was mostly idle (steal), are not marked', () => {
    const jitter = play([
      { sample: BUSY, late: 4, onTime: 96 },
      { sample: QUIET, late: 0, onTime: 100 },
    ]);
    expect(jitter.records).toEqual([]);
    const idle = play([
      { sample: { busy: 0.4, loopDelayP99Ms: 60 }, late: 30, onTime: 70 },
      { sample: QUIET, late: 0, onTime: 100 },
    ]);
    expect(idle.records).toEqual([]);
    expect(idle.warnings).toEqual([]);
  });
});
