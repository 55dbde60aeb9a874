import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JobstormRecord } from '../../src/core/record.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * Issue 39: a server that acknowledges a cancel with IN_PROGRESS and shows CANCELLED later (the
 * stream was saved from a run against test/check/cancel-ack-server.ts; cancel-ack-live.test.ts
 * makes the same exchange live). Our emulator answers a cancel with CANCELLED at once, so without
 * this stream nothing proves that the checks remember a cancel they did not see take effect.
 */
const SAVED = new URL('./fixtures/cancel-acknowledged.ndjson', import.meta.url);

function savedStream(): JobstormRecord[] {
  return readFileSync(SAVED, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as JobstormRecord);
}

function fired(records: readonly JobstormRecord[]): Record<string, number> {
  const [run, ...rest] = records;
  if (run?.type !== 'run') throw new Error('a saved stream starts with its run record');
  const c = new FoldedChecker(run);
  for (const r of rest) c.add(r);
  return Object.fromEntries(c.finish().violations.map((g) => [g.id, g.count]));
}

/** Each job's (op, status) in the order answered. */
function sequences(records: readonly JobstormRecord[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of records) {
    if (r.type !== 'exchange' || r.jobId === undefined || r.status !== 200) continue;
    const status = (r.body as { status?: string } | undefined)?.status ?? '';
    out.set(r.jobId, [...(out.get(r.jobId) ?? []), `${r.op}:${status}`]);
  }
  return out;
}

describe('a cancel acknowledged before it takes effect (saved record stream)', () => {
  it('the stream is that exchange: cancel answered IN_PROGRESS, CANCELLED shown by a later poll', () => {
    const jobs = sequences(savedStream());
    expect(jobs.size).toBe(3);
    for (const seq of jobs.values()) {
      const cancel = seq.indexOf('cancel:IN_PROGRESS');
      expect(cancel).toBeGreaterThan(0);
      expect(seq.slice(cancel + 1).every((s) => s === 'status:IN_PROGRESS' || s === 'status:CANCELLED')).toBe(
        true,
      );
      expect(seq.at(-1)).toBe('status:CANCELLED');
    }
  });

  it('gives no finding: the CANCELLED was asked for', () => {
    expect(fired(savedStream())).toEqual({});
  });

  it('without the cancels, the same stream fires transition.cancelled-unprompted once per job', () => {
    const uncancelled = savedStream().filter((r) => r.type !== 'exchange' || r.op !== 'cancel');
    expect(fired(uncancelled)).toEqual({ 'transition.cancelled-unprompted': 3 });
  });

  it('a retry after the cancel clears it: a CANCELLED after that is unprompted again', () => {
    const records = savedStream();
    const firstCancel = records.findIndex((r) => r.type === 'exchange' && r.op === 'cancel');
    const cancel = records[firstCancel];
    if (cancel?.type !== 'exchange') throw new Error('the saved stream has a cancel');
    // A retry of ours starts the job over: the cancel asked before it no longer explains a CANCELLED.
    const retry = {
      ...cancel,
      seq: 10_000,
      op: 'retry' as const,
      path: cancel.path.replace('cancel', 'retry'),
    };
    records.splice(firstCancel + 1, 0, retry);
    expect(Object.keys(fired(records))).toContain('transition.cancelled-unprompted');
  });
});
