import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, RunRecord } from '../../src/core/record.js';
import type { Summary } from '../../src/report/summary.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { parseThresholds } from '../../src/report/threshold.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * A target that takes jobs and never runs them (no workers, a stuck queue) answers every poll
 * well-formed and fast: the run used to pass with not one job finished. Jobs followed but never
 * seen final now make it inconclusive; a run that only submits is not held to it.
 */

const RUN: RunRecord = {
  v: 1,
  type: 'run',
  runId: 'r',
  scenario: 's',
  target: 'http://127.0.0.1:1/v2/ep',
  startedAtMs: 1_700_000_000_000,
  ownsEndpoint: false,
};
let seq = 0;

function ex(
  op: 'run' | 'status',
  jobId: string,
  at: number,
  status: number,
  body: Record<string, unknown>,
): ExchangeRecord {
  return {
    v: 1,
    type: 'exchange',
    seq: ++seq,
    op,
    method: op === 'run' ? 'POST' : 'GET',
    path: op === 'run' ? '/run' : `/status/${jobId}`,
    intendedAt: at,
    sentAt: at,
    firstByteAt: at + 1,
    endAt: at + 2,
    status,
    jobId,
    attempt: 1,
    reqBytes: 10,
    resBytes: 40,
    body,
  };
}

/** 20 jobs submitted; each then polled `polls` times with the states `state(i, poll)` gives. */
function summary(polls: number, state: (job: number, poll: number) => string | 404): Summary {
  const metrics = new FoldedMetrics();
  metrics.add(RUN);
  for (let i = 0; i < 20; i++) {
    const id = `job-${String(i)}`;
    metrics.add(ex('run', id, i * 100, 200, { id, status: 'IN_QUEUE' }));
    for (let p = 0; p < polls; p++) {
      const s = state(i, p);
      metrics.add(
        s === 404
          ? ex('status', id, i * 100 + 50 * (p + 1), 404, { error: 'not found' })
          : ex('status', id, i * 100 + 50 * (p + 1), 200, {
              id,
              status: s,
              ...(s === 'COMPLETED' ? { delayTime: 5, executionTime: 20, output: {} } : {}),
            }),
      );
    }
  }
  return buildSummary({
    run: RUN,
    metrics,
    checks: ['schema.status'],
    thresholds: parseThresholds(['p99(run) < 1s']),
    coverage: { 'schema.status': 20 + 20 * polls },
  });
}

describe('jobs followed but never seen final', () => {
  it('a queue that never moves: inconclusive (exit 4), saying what went unjudged and what to look at', () => {
    const s = summary(3, () => 'IN_QUEUE');
    expect(s.jobs.unfinished).toBe(20);
    expect(s.verdict.status).toBe('inconclusive');
    expect(s.verdict.reasons).toEqual([
      'no job finished: 20 accepted and followed, none seen COMPLETED, FAILED, CANCELLED or TIMED_OUT by the end, so no rule about how jobs end was judged (does the endpoint have workers? do its jobs outlast the run?)',
    ]);
  });

  it('one job seen final is enough to pass; so is a run that follows nothing (fire and forget)', () => {
    expect(
      summary(3, (job, poll) => (job === 7 && poll === 2 ? 'COMPLETED' : 'IN_PROGRESS')).verdict.status,
    ).toBe('passed');
    expect(summary(0, () => 'IN_QUEUE').verdict.status).toBe('passed');
  });

  it('jobs lost (404 after they were accepted) are judged by the lost-job rules, not called unfinished', () => {
    const s = summary(2, (_, poll) => (poll === 1 ? 404 : 'IN_QUEUE'));
    expect(s.jobs.lost).toBeGreaterThan(0);
    expect(s.verdict.reasons.join(' ')).not.toContain('no job finished');
  });
});
