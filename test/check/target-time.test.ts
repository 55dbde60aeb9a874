import { describe, expect, it } from 'vitest';
import { TargetTime } from '../../src/check/target-time.js';
import { RECORD_VERSION, type ClockRecord, type JobstormRecord } from '../../src/core/record.js';
import { ex, runRecord, webhook } from './records.js';

/*
 * Record times on the target's clock: advances answered by our time t count from t on, and a
 * manual clock stands still between them.
 */

const clock = (at: number, advancedMs: number): ClockRecord => ({
  v: RECORD_VERSION,
  type: 'clock',
  seq: 0,
  at,
  advancedMs,
});

describe('TargetTime', () => {
  it('leaves records as they are on a run without advances or a manual clock', () => {
    const t = new TargetTime(runRecord());
    const r = ex('status', 100, 200);
    expect(t.identity).toBe(true);
    expect(t.map(r)).toBe(r);
    expect(t.at(123)).toBe(123);
  });

  it('adds every advance answered at or before a time, cumulatively', () => {
    const t = new TargetTime(runRecord());
    t.advance(clock(100, 1000));
    expect(t.identity).toBe(false);
    t.advance(clock(200, 500));
    expect(t.at(99)).toBe(99);
    expect(t.at(100)).toBe(1100);
    expect(t.at(199)).toBe(1199);
    expect(t.at(200)).toBe(1700);
    expect(t.at(300)).toBe(1800);
  });

  it('on a manual clock, reads only the advances', () => {
    const t = new TargetTime(runRecord({ targetClock: 'manual' }));
    expect(t.identity).toBe(false);
    expect(t.at(500)).toBe(0);
    t.advance(clock(100, 1000));
    expect(t.at(99)).toBe(0);
    expect(t.at(100)).toBe(1000);
    expect(t.at(5000)).toBe(1000);
  });

  it('maps every time of an exchange, a webhook and a dropped request, and leaves other records', () => {
    const t = new TargetTime(runRecord());
    t.advance(clock(0, 1000));
    const r = ex('status', 10, 200, undefined, { took: 5, firstByteAt: 12 });
    expect(t.map(r)).toMatchObject({ intendedAt: 1010, sentAt: 1010, endAt: 1015, firstByteAt: 1012 });
    expect(r.sentAt).toBe(10);
    expect(t.map(ex('status', 10, 200))).not.toHaveProperty('firstByteAt');
    expect(t.map(webhook(20, 'j', 200, {}))).toMatchObject({ at: 1020 });
    const dropped: JobstormRecord = { v: RECORD_VERSION, type: 'dropped', seq: 1, intendedAt: 30, flow: 'f' };
    expect(t.map(dropped)).toMatchObject({ intendedAt: 1030 });
    const c = clock(40, 5);
    expect(t.map(c)).toBe(c);
  });
});
