import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import type { GeneratorRecord } from '../../src/core/record.js';
import { GeneratorWatch, type GeneratorSample } from '../../src/runner/generator-watch.js';
import { queuedExchange } from './queued-exchange.js';

/*
 * Issue 35 item 4: a cold engine at 8,000 requests/s kept its connections busy with answers it had
 * not read yet, and its first second's requests waited up to 260 ms for a free connection while the
 * target answered in a few ms. That wait is jobstorm's: the second is marked on its own. The same
 * waits behind a slow target (jobstorm's loop idle) are the target's and are not marked.
 */

function secondWith(
  sample: GeneratorSample,
  waitMs: number,
): { records: GeneratorRecord[]; warnings: string[] } {
  const clock = new ManualClock();
  const records: GeneratorRecord[] = [];
  const warnings: string[] = [];
  const w = new GeneratorWatch(
    clock,
    { sample: () => sample, close: () => undefined },
    (r) => records.push(r),
    () => 0,
    (m) => warnings.push(m),
  );
  // 200 arrivals left on time (the pacer kept up); 50 of their requests waited for a connection.
  for (let n = 0; n < 200; n++) w.arrival(0.5);
  for (let n = 0; n < 50; n++) w.exchange(queuedExchange({ intendedAt: n * 5, queuedMs: waitMs }));
  clock.advance(1000);
  w.close();
  return { records, warnings };
}

describe('requests held for a connection while jobstorm was slow to read answers', () => {
  it('mark the second alone when the loop lagged (busy, callbacks 10 ms late or more)', () => {
    const { records, warnings } = secondWith({ busy: 0.8, loopDelayP99Ms: 14 }, 200);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('arrivals late p99 200 ms');
    expect(records).toEqual([expect.objectContaining({ at: 0, latenessP99Ms: 200 })]);
  });

  it('are the target\u2019s when the loop was idle (a slow target holds the connections)', () => {
    expect(secondWith({ busy: 0.2, loopDelayP99Ms: 1 }, 200).records).toEqual([]);
  });

  it('are not marked when the loop lagged but requests went out within 10 ms', () => {
    expect(secondWith({ busy: 0.8, loopDelayP99Ms: 14 }, 8).records).toEqual([]);
  });

  it('a lagging loop alone, below BUSY and with every request on a connection at once, is not marked', () => {
    expect(secondWith({ busy: 0.8, loopDelayP99Ms: 14 }, 0).records).toEqual([]);
  });
});
