import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import type { ExchangeRecord, GeneratorRecord } from '../../src/core/record.js';
import { ConnectionOpenings } from '../../src/runner/connection-openings.js';
import { GeneratorWatch, type GeneratorSample } from '../../src/runner/generator-watch.js';
import { queuedExchange } from './queued-exchange.js';

/*
 * Issue 35 item 4: time a request spent waiting for a connection jobstorm had not opened yet is
 * jobstorm's lateness, not the target's latency. On an injected clock: a quiet loop (the wait is
 * idle time) whose requests waited for connections being opened marks that second, alone; the
 * same waits while every connection was open (busy with the target's slow answers) do not.
 */

const QUIET: GeneratorSample = { busy: 0.2, loopDelayP99Ms: 0.5 };

function exchange(intendedAt: number, sentAt: number, queuedMs?: number): ExchangeRecord {
  return queuedExchange({ intendedAt, sentAt, ...(queuedMs === undefined ? {} : { queuedMs }) });
}

function watch(): {
  clock: ManualClock;
  w: GeneratorWatch;
  records: GeneratorRecord[];
  warnings: string[];
} {
  const clock = new ManualClock();
  const records: GeneratorRecord[] = [];
  const warnings: string[] = [];
  let seq = 0;
  const w = new GeneratorWatch(
    clock,
    { sample: () => QUIET, close: () => undefined },
    (r) => records.push(r),
    () => ++seq,
    (m) => warnings.push(m),
  );
  return { clock, w, records, warnings };
}

describe('waiting for connections jobstorm was still opening', () => {
  it('marks the second it happened in, alone, on a quiet loop, and says why', () => {
    const { clock, w, records, warnings } = watch();
    // Second 0: 100 arrivals; the pool opened its connections from 2 to 150 ms. The first twenty
    // requests waited in the pool for them, eighty more waited as numbers behind those.
    clock.advance(150);
    w.connectionOpened(2, 150);
    for (let n = 0; n < 100; n++) w.arrival(0.2);
    for (let n = 0; n < 20; n++) w.exchange(exchange(n * 5, n * 5, 150 - n * 5));
    for (let n = 20; n < 100; n++) w.exchange(exchange(n * 5, 160));
    clock.advance(850);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('still opening its connections');
    expect(warnings[0]).toContain('up to 148 ms');
    // Second 1: every connection open, requests on time: the stretch ends at one second.
    for (let n = 0; n < 100; n++) {
      w.arrival(0.2);
      w.exchange(exchange(1000 + n * 5, 1000 + n * 5));
    }
    clock.advance(1000);
    // A stretch ends with the tick that finds a second clean (as late-second.test.ts shows).
    expect(records).toEqual([
      expect.objectContaining({ type: 'generator', at: 0, durationMs: 2000, latenessP99Ms: 148 }),
    ]);
    w.close();
    expect(records).toHaveLength(1);
  });

  it('the same waits for busy connections (all of them opened) are the target’s: nothing marked', () => {
    const { clock, w, records, warnings } = watch();
    // Connections opened before time 0 are never reported; the waits are the target's slowness.
    for (let n = 0; n < 100; n++) {
      w.arrival(0.2);
      w.exchange(exchange(n * 5, n * 5 + 100, 50));
    }
    clock.advance(1000);
    // A first opening mid-run that nobody waited on (requests written at once) is not a wait either.
    w.connectionOpened(1100, 1300);
    for (let n = 0; n < 100; n++) {
      w.arrival(0.2);
      w.exchange(exchange(1000 + n * 5, 1000 + n * 5));
    }
    clock.advance(1000);
    w.close();
    expect(records).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('a wait of a few ms, or one request held in a second of many arrivals, is not a stretch', () => {
    const { clock, w, records } = watch();
    w.connectionOpened(10, 18);
    for (let n = 0; n < 50; n++) {
      w.arrival(0.2);
      w.exchange(exchange(10, 10, 8));
    }
    clock.advance(1000);
    // Second 1: one request of 500 arrivals waited 200 ms for a connection opened late.
    w.connectionOpened(1200, 1400);
    for (let n = 0; n < 500; n++) w.arrival(0.2);
    w.exchange(exchange(1200, 1200, 200));
    clock.advance(1000);
    w.close();
    expect(records).toEqual([]);
  });

  it('one request held at 1 arrival/s is more than 1% of its second: marked', () => {
    const { clock, w, records } = watch();
    w.connectionOpened(0, 120);
    w.arrival(0);
    w.exchange(exchange(0, 0, 120));
    clock.advance(1000);
    w.close();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ at: 0, latenessP99Ms: 120 });
  });
});

describe('ConnectionOpenings', () => {
  it('merges spans that come out of order and measures the overlap of a wait with them', () => {
    const o = new ConnectionOpenings();
    expect(o.during(0, 100)).toBe(0);
    o.add(50, 60);
    o.add(10, 20);
    o.add(15, 30);
    o.add(55, 70);
    o.add(100, 100);
    // [10, 30] and [50, 70].
    expect(o.during(0, 100)).toBe(40);
    expect(o.during(25, 55)).toBe(10);
    expect(o.during(30, 50)).toBe(0);
    expect(o.during(70, 1000)).toBe(0);
    expect(o.during(0, 10)).toBe(0);
    o.add(20, 60);
    expect(o.during(0, 100)).toBe(60);
  });
});
