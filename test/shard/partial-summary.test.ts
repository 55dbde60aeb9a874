import { describe, expect, it } from 'vitest';
import type { EpochClock } from '../../src/core/clock.js';
import { scenarioOf } from '../../src/library/scenario-source.js';
import type { Meeting, StartTogether, StopNotice } from '../../src/session/barrier/meeting.js';
import { RunSession } from '../../src/session/run-session.js';
import { manualTarget, quietLoop } from '../helpers/manual-target.js';

/*
 * Issue 38: the summary a forced exit writes (a second Ctrl-C) carries the shard's start instant
 * and the shard that stopped it, as the full summary does, so a merge of it aligns and names.
 * The session, the emulator and the peer's notice share a manual clock (issue 46).
 */

/** Meets at once (planned a little earlier) and hears a peer's stop notice soon after the start. */
function peerStopsAfter(
  clock: EpochClock,
  ms: number,
  notice: StopNotice,
): StartTogether & { finished: boolean } {
  return {
    via: 'barrier',
    finished: false,
    meet(): Promise<Meeting> {
      const now = clock.epochNow();
      return Promise.resolve({ kind: 'start', via: 'barrier', plannedMs: now, atMs: now });
    },
    watch(onStop) {
      return clock.schedule(ms, () => onStop(notice));
    },
    stopOthers: () => Promise.resolve(),
    finish() {
      this.finished = true;
      return Promise.resolve();
    },
  };
}

describe('partialSummary of a shard', () => {
  it('carries run.startAt and run.stoppedBy, as finish does', async () => {
    const scenario = await scenarioOf({
      scenario: {
        name: 'partial-shard',
        phases: [{ duration: '20s', rate: 5 }],
        flows: [{ name: 'submit', steps: [{ run: { input: { sleep_ms: 10 } } }] }],
      },
    });
    const t = await manualTarget();
    const notice = { shard: '2/3', reason: 'interrupted (Ctrl-C or SIGTERM)', atMs: t.clock.epochNow() };
    const together = peerStopsAfter(t.clock, 500, notice);
    const session = new RunSession({
      clock: t.clock,
      generatorProbe: quietLoop,
      scenario,
      target: t.target,
      runId: 'partial-shard',
      shard: { index: 1, count: 3 },
      together,
      gracefulStopMs: 1000,
    });
    try {
      expect(session.partialSummary()).toBeUndefined();
      await t.driver.run(session.run());
    } finally {
      await t.emulator.close();
    }
    const partial = session.partialSummary();
    const full = await session.finish();
    // Stopped when the notice came, half a second in, not after the scenario's 20 s.
    expect(full.run.durationMs).toBe(500);
    expect(together.finished).toBe(true);
    expect(partial?.run.end).toBe('interrupted');
    expect(partial?.run.startAt?.via).toBe('barrier');
    expect(partial?.run.startAt).toEqual(full.run.startAt);
    expect(partial?.run.stoppedBy).toEqual({
      shard: '2/3',
      reason: 'interrupted (Ctrl-C or SIGTERM)',
      at: new Date(notice.atMs).toISOString(),
    });
    expect(partial?.run.stoppedBy).toEqual(full.run.stoppedBy);
  });
});
