import { describe, expect, it } from 'vitest';
import { LoopHeartbeat } from '../../src/core/loop-heartbeat.js';
import { HeldClock } from '../helpers/held-clock.js';

/*
 * An answer read after jobstorm's loop was held up may have come in at any time while it was: the
 * heartbeat says how long, whichever the loop runs first once it is back, the I/O or its timers.
 */
describe('LoopHeartbeat', () => {
  it('says nothing while the loop keeps its beat', () => {
    const clock = new HeldClock();
    const beat = new LoopHeartbeat(clock);
    for (let i = 0; i < 20; i++) {
      clock.advance(37);
      expect(beat.gapAt(clock.now())).toBe(0);
    }
    beat.close();
  });

  it('an answer read before the late beat runs: the whole time since the last beat', () => {
    const clock = new HeldClock();
    const beat = new LoopHeartbeat(clock);
    clock.advance(1050);
    clock.hold(3000);
    // The last beat ran at 1000; the answer read at 4050 may have come in from then on.
    expect(beat.gapAt(clock.now())).toBe(3050);
    beat.close();
  });

  it('an answer read after the late beat, until the next beat on time: the held span still counts', () => {
    const clock = new HeldClock();
    const beat = new LoopHeartbeat(clock);
    clock.advance(1050);
    clock.hold(3000);
    // The beat due at 1100 runs late, at 4050, first.
    clock.advance(0);
    expect(beat.gapAt(clock.now())).toBe(3050);
    clock.advance(60);
    expect(beat.gapAt(clock.now())).toBe(3110);
    // The next beat came on time: the loop runs freely again.
    clock.advance(50);
    expect(beat.gapAt(clock.now())).toBe(0);
    beat.close();
  });

  it("a held-up of under two beats is the loop's ordinary jitter, not a gap", () => {
    const clock = new HeldClock();
    const beat = new LoopHeartbeat(clock);
    clock.advance(1000);
    clock.hold(150);
    expect(beat.gapAt(clock.now())).toBe(0);
    clock.advance(0);
    expect(beat.gapAt(clock.now())).toBe(0);
    beat.close();
  });
});
