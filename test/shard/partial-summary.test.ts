import { describe, expect, it } from 'vitest';
import { scenarioOf } from '../../src/library/scenario-source.js';
import { startEmbeddedTarget } from '../../src/library/embedded-target.js';
import type { Meeting, StartTogether, StopNotice } from '../../src/session/barrier/meeting.js';
import { RunSession } from '../../src/session/run-session.js';
import { systemClock } from '../../src/core/clock.js';

/*
 * Issue 38: the summary a forced exit writes (a second Ctrl-C) carries the shard's start instant
 * and the shard that stopped it, as the full summary does, so a merge of it aligns and names.
 */

/** Meets at once (planned a little earlier) and hears a peer's stop notice soon after the start. */
function peerStopsAfter(ms: number, notice: StopNotice): StartTogether & { finished: boolean } {
  return {
    via: 'barrier',
    finished: false,
    meet(): Promise<Meeting> {
      // Real time: the run here is on the system clock; converting it is left (issue 46).
      const now = performance.timeOrigin + performance.now();
      return Promise.resolve({ kind: 'start', via: 'barrier', plannedMs: now, atMs: now });
    },
    watch(onStop) {
      // Real time: the peer's stop comes mid-run of a session on the system clock.
      const timer = setTimeout(() => onStop(notice), ms);
      return () => clearTimeout(timer);
    },
    stopOthers: () => Promise.resolve(),
    finish() {
      this.finished = true;
      return Promise.resolve();
    },
  };
}

describe('partialSummary of a shard', () => {
  it('carries run.startAt and run.stoppedBy, as finish does', { timeout: 60_000 }, async () => {
    const scenario = await scenarioOf({
      scenario: {
        name: 'partial-shard',
        phases: [{ duration: '20s', rate: 5 }],
        flows: [{ name: 'submit', steps: [{ run: { input: { sleep_ms: 10 } } }] }],
      },
    });
    const { target, emulator } = await startEmbeddedTarget(scenario);
    // Real time: the notice's instant is only reported, never judged.
    const notice = { shard: '2/3', reason: 'interrupted (Ctrl-C or SIGTERM)', atMs: Date.now() };
    const together = peerStopsAfter(500, notice);
    const session = new RunSession({
      clock: systemClock,
      scenario,
      target,
      runId: 'partial-shard',
      shard: { index: 1, count: 3 },
      together,
      gracefulStopMs: 1000,
    });
    try {
      expect(session.partialSummary()).toBeUndefined();
      await session.run();
    } finally {
      await emulator.close();
    }
    const partial = session.partialSummary();
    const full = await session.finish();
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
