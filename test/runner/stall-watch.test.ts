import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { RECORD_VERSION, type ExchangeRecord, type StallRecord } from '../../src/core/record.js';
import type { ErrorKind } from '../../src/core/request-error.js';
import { LoopHeartbeat } from '../../src/core/loop-heartbeat.js';
import { StallWatch } from '../../src/runner/stall-watch.js';
import { HeldClock } from '../helpers/held-clock.js';

/* Issue 12: no answer at all while requests wait is a stall, reported with its length and load. */

function answer(
  clock: { now(): number },
  status: number | undefined,
  kind: ErrorKind = 'timeout',
): ExchangeRecord {
  const now = clock.now();
  return {
    v: RECORD_VERSION,
    type: 'exchange',
    seq: 0,
    op: 'status',
    method: 'GET',
    path: '/status/x',
    intendedAt: now,
    sentAt: now,
    endAt: now,
    status,
    ...(status === undefined ? { error: { kind, message: 't' } } : { firstByteAt: now }),
    reqBytes: 0,
    resBytes: 0,
  };
}

function watch(stallAfterMs = 5000): {
  clock: ManualClock;
  w: StallWatch;
  stalls: StallRecord[];
  began: number[];
} {
  const clock = new ManualClock();
  const stalls: StallRecord[] = [];
  let seq = 0;
  const w = new StallWatch(
    clock,
    stallAfterMs,
    (r) => stalls.push(r),
    () => ++seq,
  );
  const began: number[] = [];
  w.onStall(() => began.push(clock.now()));
  return { clock, w, stalls, began };
}

describe("StallWatch when jobstorm's own loop was held", () => {
  function heldWatch(): { clock: HeldClock; w: StallWatch; stalls: StallRecord[]; began: number[] } {
    const clock = new HeldClock();
    const stalls: StallRecord[] = [];
    let seq = 0;
    const beat = new LoopHeartbeat(clock);
    const w = new StallWatch(
      clock,
      5000,
      (r) => stalls.push(r),
      () => ++seq,
      (now) => beat.gapAt(now),
    );
    const began: number[] = [];
    w.onStall(() => began.push(clock.now()));
    return { clock, w, stalls, began };
  }
  const answered = (clock: HeldClock): ExchangeRecord => answer(clock, 200);

  it('stopped 8 s with requests out, its late tick first and the answers after: no stall', () => {
    const { clock, w, stalls, began } = heldWatch();
    w.sent();
    w.sent();
    clock.advance(1000);
    clock.hold(8000);
    // The late tick runs before the I/O that came in meanwhile (a poll cut short by SIGCONT).
    clock.advance(0);
    w.exchange(answered(clock));
    w.exchange(answered(clock));
    clock.advance(2000);
    w.close();
    expect(began).toEqual([]);
    expect(stalls).toEqual([]);
  });

  it('a target that gives no answer is still a stall, one tick after the loop is back', () => {
    const { clock, w, stalls, began } = heldWatch();
    w.sent();
    clock.advance(1000);
    clock.hold(8000);
    clock.advance(0);
    expect(began).toEqual([]);
    clock.advance(250);
    expect(began).toEqual([9250]);
    w.close();
    expect(stalls).toMatchObject([{ at: 0, inFlight: 1 }]);
  });
});

describe('StallWatch', () => {
  it('a slow but answering target is no stall', () => {
    const { clock, w, stalls } = watch();
    for (let i = 0; i < 20; i++) {
      w.sent();
      w.sent();
      clock.advance(1000);
      w.exchange(answer(clock, 200));
    }
    w.close();
    expect(stalls).toEqual([]);
  });

  it('requests with no answer for stallAfter: one stall from the first of them to the next answer', () => {
    const { clock, w, stalls, began } = watch();
    w.sent();
    w.exchange(answer(clock, 200));
    clock.advance(2000);
    for (let i = 0; i < 40; i++) w.sent();
    clock.advance(4000);
    expect(began).toEqual([]);
    clock.advance(1500);
    expect(began).toHaveLength(1);
    expect(w.stalled).toBe(true);
    clock.advance(6800);
    w.exchange(answer(clock, 200));
    expect(stalls).toEqual([
      { v: RECORD_VERSION, type: 'stall', seq: 1, at: 2000, durationMs: 12_300, inFlight: 40 },
    ]);
    w.close();
    expect(stalls).toHaveLength(1);
  });

  it('errors are not answers: a dead target refusing at once stalls too, reported up to the end', () => {
    const { clock, w, stalls } = watch(1000);
    for (let i = 0; i < 30; i++) {
      w.sent();
      w.exchange(answer(clock, undefined));
      clock.advance(100);
    }
    w.close();
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toMatchObject({ at: 0, durationMs: 3000, inFlight: 1, failed: { timeout: 30 } });
  });

  it('says how the requests meanwhile failed (refused: the target is down), not counting its own cuts or before the last answer', () => {
    const { clock, w, stalls } = watch(1000);
    w.sent();
    w.exchange(answer(clock, undefined, 'reset'));
    w.sent();
    w.exchange(answer(clock, 200));
    for (let i = 0; i < 20; i++) {
      w.sent();
      w.exchange(answer(clock, undefined, i < 2 ? 'reset' : 'refused'));
      clock.advance(100);
    }
    w.sent();
    w.exchange(answer(clock, undefined, 'aborted'));
    w.close();
    expect(stalls).toEqual([
      {
        v: RECORD_VERSION,
        type: 'stall',
        seq: 1,
        at: 0,
        durationMs: 2000,
        inFlight: 1,
        failed: { reset: 2, refused: 18 },
      },
    ]);
  });

  it('idle time with nothing in flight is no stall', () => {
    const { clock, w, stalls } = watch(1000);
    w.sent();
    w.exchange(answer(clock, 200));
    clock.advance(10_000);
    w.close();
    expect(stalls).toEqual([]);
  });
});
