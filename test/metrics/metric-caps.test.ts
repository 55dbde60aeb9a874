import { describe, expect, it } from 'vitest';
import type { ExchangeRecord } from '../../src/core/record.js';
import { runPath } from '../../src/session/record-path.js';
import { ScalingTrack } from '../../src/metrics/scaling-track.js';
import { JobEvents } from '../../src/fold/job-events.js';
import { JobFold } from '../../src/fold/job-fold.js';
import { RUN, START, health } from './scaling-fixture.js';

/*
 * Issue 52: what the fold and the metrics keep per job and per /health sample is capped, and each
 * cap that dropped detail says how much: the fold gives up on the oldest of too many jobs followed
 * at once (counted untracked), the scaling figures keep the first samples and the exact queue
 * spans of a bounded number of lowPriority jobs.
 */

let seq = 0;
function submit(id: string, at: number, lowPriority = false): ExchangeRecord {
  return {
    v: 1,
    type: 'exchange',
    seq: ++seq,
    op: 'run',
    method: 'POST',
    path: '/run',
    intendedAt: at,
    sentAt: at,
    endAt: at + 5,
    status: 200,
    reqBytes: 10,
    resBytes: 10,
    jobId: id,
    body: { id, status: 'IN_QUEUE' },
    ...(lowPriority ? { req: { lowPriority: true } } : {}),
  };
}

const NONE = new JobEvents(0);

describe('the caps of the fold and the metrics', () => {
  it('follows at most jobsFollowed jobs at once and counts those given up on, as untracked too', () => {
    const path = runPath({ checks: false, limits: { jobsFollowed: 4 } });
    path.add(RUN);
    for (let i = 0; i < 10; i++) path.add(submit(`j${String(i)}`, i));
    expect(path.caps()).toEqual([{ id: 'jobs.followed', limit: 4, dropped: 6 }]);
    const jobs = path.metrics.jobCounts();
    expect(jobs).toMatchObject({ submitted: 10, untracked: 6, unfinished: 4 });
  });

  it('keeps the first scalingSamples /health samples for the figures and counts the rest', () => {
    const track = new ScalingTrack(undefined, { scalingSamples: 3 });
    for (let t = 0; t < 8; t++) track.add(START, health([t, 1, 0, 0, 0, 0]), NONE);
    expect(track.toJSON()?.samples.atMs).toHaveLength(3);
    expect(track.toJSON()?.asked).toBe(8);
    expect(track.caps()).toEqual([{ id: 'scaling.samples', limit: 3, dropped: 5 }]);
  });

  it('lists the queue spans of at most queuedJobs lowPriority jobs and counts those left out', () => {
    const track = new ScalingTrack(undefined, { queuedJobs: 4 });
    // Ten lowPriority jobs never seen leaving the queue: four followed, six given up on.
    const fold = new JobFold();
    for (let i = 0; i < 10; i++) {
      const r = submit(`lo${String(i)}`, i, true);
      track.add(START, r, fold.add(r));
    }
    // Given up on, a job is listed queued to the end (null), until the spans kept exact pass 4:
    // then the oldest half of them is counted coarsely, and left out of the list.
    const listed = track.toJSON()?.lowPriorityQueued ?? [];
    expect(listed).toHaveLength(8);
    expect(listed.filter(([, to]) => to === null)).toHaveLength(8);
    expect(listed.map(([from]) => from - START).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(track.caps()).toEqual([{ id: 'scaling.low-priority', limit: 4, dropped: 6 + 2 }]);
  });

  it('reports no cap when none was reached', () => {
    const path = runPath({ checks: false });
    path.add(RUN);
    for (let i = 0; i < 10; i++) path.add(submit(`j${String(i)}`, i, true));
    expect(path.caps()).toEqual([]);
  });
});
