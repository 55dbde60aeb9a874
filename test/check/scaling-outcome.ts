import { SCALING_IDS } from '../../src/check/checks/scaling-check.js';
import type { ExchangeRecord, JobstormRecord, RunRecord } from '../../src/core/record.js';
import type { ScalingExpectation } from '../../src/core/scaling-expectation.js';
import { ex, job, runRecord, sortByEnd } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/** What the scaling rules made of a record stream: findings, judged reads and why a rule judged none. */
export interface ScalingOutcome {
  found: Record<string, number>;
  judged: Record<string, number>;
  notes: Record<string, string>;
  messages: Record<string, string | undefined>;
  cited: Record<string, number | undefined>;
}

export function scalingOutcome(
  records: JobstormRecord[],
  scaling: ScalingExpectation | undefined,
  run: Partial<RunRecord> = {},
): ScalingOutcome {
  const c = new FoldedChecker(runRecord({ ...(scaling ? { scaling } : {}), ...run }));
  for (const r of sortByEnd(records)) c.add(r);
  const result = c.finish();
  const judged: Record<string, number> = {};
  const notes: Record<string, string> = {};
  for (const id of SCALING_IDS) {
    if (result.coverage[id]) judged[id] = result.coverage[id];
    const note = result.notes[id];
    if (note !== undefined) notes[id] = note;
  }
  const ours = result.violations.filter((g) => g.id.startsWith('scaling.'));
  return {
    found: Object.fromEntries(ours.map((g) => [g.id, g.count])),
    judged,
    notes,
    messages: Object.fromEntries(ours.map((g) => [g.id, g.examples[0]?.message])),
    cited: Object.fromEntries(ours.map((g) => [g.id, g.examples[0]?.evidence.seq])),
  };
}

export interface Counts {
  idle?: number;
  running?: number;
  /** Left out of the body when undefined (a server that does not report it). */
  init?: number | undefined;
  inQueue?: number;
  /** jobs.completed; jobs.failed is 0. */
  completed?: number;
  /** How long the read took (its end is `at + took`). */
  took?: number;
}

/** A /health read sent at `at` (by default idle 0, running 0, 0 initializing, nothing queued). */
export function health(at: number, counts: Counts = {}): ExchangeRecord {
  const { idle = 0, running = 0, inQueue = 0, completed = 0, took = 5 } = counts;
  const init = 'init' in counts ? counts.init : 0;
  return ex(
    'health',
    at,
    200,
    {
      jobs: { completed, failed: 0, inProgress: running, inQueue, retried: 0 },
      workers: { idle, running, ...(init === undefined ? {} : { initializing: init }) },
    },
    { took },
  );
}

/** A job of ours submitted at `at` (lowPriority or not), queued until a later status shows otherwise. */
export function queued(id: string, at: number, lowPriority = false): ExchangeRecord {
  return ex('run', at, 200, job(id, 'IN_QUEUE'), { jobId: id, req: lowPriority ? { lowPriority } : {} });
}

/** A /status of job `id` sent at `at` showing it running: out of the queue when it ends. */
export function started(id: string, at: number): ExchangeRecord {
  return ex('status', at, 200, job(id, 'IN_PROGRESS'), { jobId: id });
}
