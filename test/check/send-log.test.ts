import { describe, expect, it } from 'vitest';
import { SendLog, SendOutcome } from '../../src/check/send-log.js';
import { mulberry32 } from '../../src/schedule/prng.js';

describe('SendLog', () => {
  it('keeps requests in send order through late arrivals, growth past its first ring and releases', () => {
    const log = new SendLog<string>();
    const r = mulberry32(5);
    const model: { sent: number; end: number; throttled: boolean; detail: string }[] = [];
    let judged = 0;
    let released = 0;
    let t = 0;
    for (let n = 0; n < 20_000; n++) {
      t += r() * 2;
      // Sent a little earlier than the newest, as answers overtake each other, but never before what was judged.
      const floorAt = judged > 0 ? (model[judged - 1]?.sent ?? 0) : 0;
      const sent = Math.max(floorAt, t - r() * 30);
      const entry = { sent, end: sent + 5, throttled: r() < 0.1, detail: `d${String(n)}` };
      log.push(
        entry.sent,
        entry.end,
        entry.throttled ? SendOutcome.Throttled : SendOutcome.Accepted,
        entry.detail,
        judged,
      );
      let i = model.length;
      while (i > judged && (model[i - 1]?.sent ?? 0) > sent) i--;
      model.splice(i, 0, entry);
      if (n % 97 === 0) judged = Math.max(judged, model.length - 50);
      // A release early, then none for a while: the ring grows while its live part wraps around.
      if (n === 999 || n === 15_000) {
        released = judged - 10;
        log.release(released);
      }
      if (n % 250 === 0) expect(mismatches(), `after ${String(n)} pushes`).toEqual([]);
    }
    expect(log.length).toBe(model.length);
    expect(mismatches()).toEqual([]);
    expect(log.detail(released - 1)).toBeUndefined();

    function mismatches(): number[] {
      const wrong: number[] = [];
      for (let i = Math.max(0, released); i < model.length; i++) {
        const m = model[i];
        if (
          log.sentAt(i) !== m?.sent ||
          log.endAt(i) !== m.end ||
          log.throttled(i) !== m.throttled ||
          log.detail(i) !== m.detail
        )
          wrong.push(i);
      }
      return wrong.slice(0, 5);
    }
  });
});

describe('SendLog floor', () => {
  it('never moves an entry below the floor, even for a request sent before it', () => {
    const log = new SendLog<string>();
    log.push(10, 11, SendOutcome.Accepted, 'a', 0);
    log.push(20, 21, SendOutcome.Throttled, 'b', 0);
    log.push(5, 6, SendOutcome.Other, 'c', 2);
    expect([0, 1, 2].map((i) => [log.sentAt(i), log.detail(i)])).toEqual([
      [10, 'a'],
      [20, 'b'],
      [5, 'c'],
    ]);
    log.push(15, 16, SendOutcome.Accepted, 'd', 2);
    expect([2, 3].map((i) => log.sentAt(i))).toEqual([5, 15]);
    log.push(12, 13, SendOutcome.Accepted, 'e', 3);
    expect([3, 4].map((i) => log.detail(i))).toEqual(['e', 'd']);
  });
});
