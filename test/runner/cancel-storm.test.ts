import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFinalStatus } from '../../src/core/job-status.js';
import { loadScenario } from '../../src/scenario/scenario-loader.js';
import { emulatorTarget, exchanges, runCollecting, statusTimelines } from './helpers.js';

const root = new URL('../../', import.meta.url).pathname;

describe('cancel storm', () => {
  it('ends with every job in a final state, cancelled while queued, running and racing completion', async () => {
    const scenario = await loadScenario(join(root, 'scenarios/cancel-storm.yaml'));
    const e = scenario.emulator;
    const { target, emulator } = await emulatorTarget({
      workersMin: e.workersMin,
      workersMax: e.workersMax,
      coldStartMs: e.coldStartMs,
    });
    try {
      const { records, outcome } = await runCollecting(scenario, target, { gracefulStopMs: 30_000 });
      expect(outcome.interrupted).toBe(false);
      const all = exchanges(records);
      const submitted = new Set(
        all.filter((r) => r.op === 'run' && r.status === 200 && r.jobId !== undefined).map((r) => r.jobId),
      );
      // The scenario's 80 arrivals, each one job.
      expect(submitted.size).toBe(80);
      const timelines = statusTimelines(records);
      const unfinished = [...submitted].filter(
        (id) => id !== undefined && !isFinalStatus(timelines.get(id)?.at(-1)),
      );
      expect(unfinished).toEqual([]);
      // A cancelled job stays cancelled.
      for (const t of timelines.values()) {
        const i = t.indexOf('CANCELLED');
        if (i >= 0) expect(t.slice(i).every((s) => s === 'CANCELLED')).toBe(true);
      }
      // The storm hit jobs in every state: what each job last showed before its cancel went out.
      const before = new Set<string>();
      for (const c of all.filter((r) => r.op === 'cancel' && (r.attempt ?? 1) === 1)) {
        const earlier = all
          .filter((r) => r.jobId === c.jobId && r.endAt <= c.sentAt && r.op !== 'cancel')
          .sort((a, b) => a.endAt - b.endAt);
        const seen = (earlier.at(-1)?.body as { status?: string } | undefined)?.status;
        if (seen !== undefined) before.add(seen);
      }
      expect(before).toContain('IN_QUEUE');
      expect(before).toContain('IN_PROGRESS');
      // The burst exceeds /cancel's concurrency limit: cancels were answered (some after 429s).
      const cancels = all.filter((r) => r.op === 'cancel');
      expect(new Set(cancels.filter((r) => r.status === 200).map((r) => r.jobId)).size).toBe(80);
      const states = new Set([...timelines.values()].map((t) => t.at(-1)));
      expect(states).toContain('CANCELLED');
    } finally {
      await emulator.close();
    }
  }, 60_000);
});
