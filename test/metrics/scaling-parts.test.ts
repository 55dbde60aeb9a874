import { describe, expect, it } from 'vitest';
import type { ExchangeRecord } from '../../src/core/record.js';
import { JobEvents } from '../../src/fold/job-events.js';
import { scaleEpisodes } from '../../src/metrics/scale-episodes.js';
import type { ScalingData, WorkerSample } from '../../src/metrics/scaling-data.js';
import { FIGURE_NAMES, NO_HEALTH, scalingFigures } from '../../src/metrics/scaling-figures.js';
import { ScalingTrack } from '../../src/metrics/scaling-track.js';
import {
  billedWorkers,
  compareSamples,
  readyWorkers,
  samplesFromColumns,
  samplesToColumns,
  workerSampleOf,
} from '../../src/metrics/worker-sample.js';
import { ex } from '../check/records.js';

/*
 * The scaling figures' parts on samples laid out by hand (issue 39): each rule on its edge, the
 * episode that starts or ends on an equal count, the cold start read by the nearest sample, the
 * drain on a sample exactly at the last arrival, and the track's merge and round trip.
 */

/** [at ms, idle, running, initializing, inQueue, inProgress] */
type Row = [number, number, number, number | undefined, number, number];

function sample([atMs, idle, running, initializing, inQueue, inProgress]: Row): WorkerSample {
  return { atMs, idle, running, initializing, throttled: undefined, inQueue, inProgress };
}

function data(rows: readonly Row[], over: Partial<ScalingData> = {}): ScalingData {
  return {
    asked: rows.length,
    samples: samplesToColumns(rows.map(sample)),
    delayUs: [],
    lastArrivalMs: null,
    ...over,
  };
}

const INPUT = { originMs: 0, completed: 0 };

describe('scale episodes', () => {
  it('begin only when the queued and running jobs outnumber the ready workers, with some queued', () => {
    // Equal counts: every job has a worker; more jobs in progress but none queued: nothing waits.
    expect(scaleEpisodes([sample([0, 1, 1, 0, 1, 1])])).toEqual([]);
    expect(scaleEpisodes([sample([0, 0, 1, 0, 0, 5])])).toEqual([]);
    expect(scaleEpisodes([sample([0, 1, 1, 0, 1, 2]), sample([500, 1, 1, 0, 1, 2])])).toEqual([
      { atMs: 0, end: 'open', durationMs: 500, from: 2, to: 2 },
    ]);
  });

  it('end by scaling only when the ready workers rise above where they began', () => {
    const rows: Row[] = [
      [0, 0, 2, 0, 3, 2],
      [100, 1, 1, 0, 3, 2], // still 2 ready: not scaled
      [300, 0, 3, 0, 1, 2], // 3 ready: scaled after 300 ms, and no longer short of workers
    ];
    expect(scaleEpisodes(rows.map(sample))).toEqual([
      { atMs: 0, end: 'scaled', durationMs: 300, from: 2, to: 3 },
    ]);
  });

  it('end drained when the queue empties without more workers, even with fewer workers', () => {
    const rows: Row[] = [
      [0, 0, 2, 0, 3, 2],
      [400, 0, 1, 0, 0, 1],
    ];
    expect(scaleEpisodes(rows.map(sample))).toEqual([
      { atMs: 0, end: 'drained', durationMs: 400, from: 2, to: 1 },
    ]);
  });

  it('are none without samples, and open at the last sample when nothing ended them', () => {
    expect(scaleEpisodes([])).toEqual([]);
    const rows: Row[] = [
      [0, 0, 0, 0, 0, 0],
      [100, 0, 1, 0, 5, 1],
      [900, 0, 0, 0, 5, 0],
    ];
    expect(scaleEpisodes(rows.map(sample))).toEqual([
      { atMs: 100, end: 'open', durationMs: 800, from: 1, to: 0 },
    ]);
  });
});

describe('worker samples', () => {
  it('take a /health reading as it is, at the time given', () => {
    const counts = { idle: 1, running: 2, initializing: 3, throttled: 4, inQueue: 5, inProgress: 6 };
    expect(workerSampleOf(counts, 7)).toEqual({ atMs: 7, ...counts });
    expect(workerSampleOf({ idle: 1, running: 2, inQueue: 0, inProgress: 0 }, 1)).toEqual({
      atMs: 1,
      idle: 1,
      running: 2,
      initializing: undefined,
      throttled: undefined,
      inQueue: 0,
      inProgress: 0,
    });
  });

  it('count ready workers as idle and running, billed ones with those starting too', () => {
    const s = sample([0, 2, 3, 4, 0, 0]);
    expect(readyWorkers(s)).toBe(5);
    expect(billedWorkers(s)).toBe(9);
    expect(billedWorkers(sample([0, 2, 3, undefined, 0, 0]))).toBe(5);
  });

  it('sort by time, then by every count in turn, so any merge order agrees', () => {
    const base: WorkerSample = {
      atMs: 1,
      idle: 1,
      running: 1,
      initializing: 1,
      throttled: 1,
      inQueue: 1,
      inProgress: 1,
    };
    expect(compareSamples(base, { ...base })).toBe(0);
    for (const key of [
      'atMs',
      'idle',
      'running',
      'initializing',
      'throttled',
      'inQueue',
      'inProgress',
    ] as const) {
      const more = { ...base, [key]: 2 };
      expect(compareSamples(base, more)).toBeLessThan(0);
      expect(compareSamples(more, base)).toBeGreaterThan(0);
    }
    // A missing count sorts before zero.
    expect(compareSamples({ ...base, initializing: undefined }, { ...base, initializing: 0 })).toBeLessThan(
      0,
    );
    expect(compareSamples({ ...base, throttled: undefined }, { ...base, throttled: 0 })).toBeLessThan(0);
    expect(
      compareSamples({ ...base, initializing: 0 }, { ...base, initializing: undefined }),
    ).toBeGreaterThan(0);
    expect(compareSamples({ ...base, throttled: 0 }, { ...base, throttled: undefined })).toBeGreaterThan(0);
    // Time decides before the counts.
    expect(compareSamples({ ...base, atMs: 0, idle: 5 }, base)).toBeLessThan(0);
  });

  it('go to columns and back, a missing count as null', () => {
    const samples = [sample([1, 1, 2, undefined, 3, 4]), { ...sample([2, 5, 6, 7, 8, 9]), throttled: 3 }];
    const columns = samplesToColumns(samples);
    expect(columns).toEqual({
      atMs: [1, 2],
      idle: [1, 5],
      running: [2, 6],
      initializing: [null, 7],
      throttled: [null, 3],
      inQueue: [3, 8],
      inProgress: [4, 9],
    });
    expect(samplesFromColumns(JSON.parse(JSON.stringify(columns)) as typeof columns)).toEqual(samples);
  });
});

describe('scaling figures on hand-made samples', () => {
  it('give every figure not measured, for one reason, without a sample', () => {
    const f = scalingFigures(data([], { lastArrivalMs: 5, delayUs: [[1, 100]] }), INPUT);
    expect(Object.keys(f.notMeasured).sort()).toEqual([...FIGURE_NAMES].sort());
    for (const k of FIGURE_NAMES) expect(f.notMeasured[k]).toBe(NO_HEALTH);
    expect(f.samples).toBe(0);
    expect(f.meanWorkers).toBeNull();
  });

  it('give episodes from the run’s start and the scale-up lags in ascending order', () => {
    const rows: Row[] = [
      [1000, 0, 1, 0, 5, 1],
      [4000, 0, 2, 0, 5, 2], // scaled after 3 s, and waiting again
      [5000, 0, 3, 0, 5, 3], // scaled after 1 s
      [6000, 0, 3, 0, 0, 3],
    ];
    const f = scalingFigures(data(rows), { originMs: 500, completed: 0 });
    expect(f.episodes).toEqual([
      { at: 500, end: 'scaled', durationMs: 3000, from: 1, to: 2 },
      { at: 3500, end: 'scaled', durationMs: 1000, from: 2, to: 3 },
      { at: 4500, end: 'drained', durationMs: 1000, from: 3, to: 3 },
    ]);
    expect(f.scaleUpLagMs).toEqual([1000, 3000]);
    expect(f.notMeasured.scaleUpLag).toBeUndefined();
    expect(f.samples).toBe(4);
  });

  it('say why there is no lag: no episode, or how the episodes ended', () => {
    const none = scalingFigures(data([[0, 1, 0, 0, 0, 0]]), INPUT);
    expect(none.notMeasured.scaleUpLag).toBe('queued work never outnumbered the ready workers');
    const rows: Row[] = [
      [0, 0, 1, 0, 5, 1],
      [1000, 0, 1, 0, 0, 1],
      [2000, 0, 1, 0, 5, 1],
      [3000, 0, 1, 0, 0, 1],
      [4000, 0, 1, 0, 5, 1],
    ];
    expect(scalingFigures(data(rows), INPUT).notMeasured.scaleUpLag).toBe(
      'no worker was added in 3 episodes of queued work (2 drained, 1 open at the end)',
    );
  });

  it('time the drain from the last arrival to the first empty sample, one exactly at the arrival included', () => {
    const rows: Row[] = [
      [0, 0, 1, 0, 0, 0], // empty, but before the arrival
      [1000, 0, 1, 0, 0, 0], // empty exactly at the arrival
      [2000, 0, 1, 0, 0, 0],
    ];
    expect(scalingFigures(data(rows, { lastArrivalMs: 1000 }), INPUT).drainMs).toBe(0);
    const busy: Row[] = [
      [1000, 0, 1, 0, 1, 0], // queued
      [1500, 0, 1, 0, 0, 1], // in progress
      [2500, 0, 1, 0, 0, 0],
      [3000, 0, 1, 0, 0, 0],
    ];
    expect(scalingFigures(data(busy, { lastArrivalMs: 900 }), INPUT).drainMs).toBe(1600);
  });

  it('say why there is no drain time', () => {
    const rows: Row[] = [
      [0, 0, 1, 0, 0, 0],
      [1000, 0, 1, 0, 2, 1],
      [3250, 0, 1, 0, 0, 1],
    ];
    expect(scalingFigures(data(rows), INPUT).notMeasured.drainTime).toBe('no job was submitted');
    expect(scalingFigures(data(rows, { lastArrivalMs: 3251 }), INPUT).notMeasured.drainTime).toBe(
      'no /health sample after the last arrival',
    );
    const f = scalingFigures(
      data([...rows.slice(0, 2), [2000, 0, 1, 0, 1, 1], rows[2] as Row], { lastArrivalMs: 1000 }),
      INPUT,
    );
    expect(f.drainMs).toBeNull();
    expect(f.notMeasured.drainTime).toBe(
      'jobs were still queued or in progress 2.3 s after the last arrival, when sampling ended',
    );
  });

  it('weigh each second’s wait by the time workers were initializing, read by the nearest sample', () => {
    // Initializing shown at 2000 and 3000 only: by the nearest sample, from 1500 to 3500.
    const rows: Row[] = [
      [0, 1, 0, 0, 0, 0],
      [1000, 1, 0, 0, 0, 0],
      [2000, 0, 1, 3, 3, 1],
      [3000, 0, 1, 3, 3, 1],
      [4000, 0, 4, 0, 0, 4],
    ];
    // 1 s of wait in each second from 1 to 3: initializing for 0.5, 1 and 0.5 of them.
    const wait: [number, number][] = [
      [1, 1_000_000],
      [2, 1_000_000],
      [3, 1_000_000],
    ];
    const f = scalingFigures(data(rows, { delayUs: wait }), INPUT);
    expect(f.coldStartShare).toBeCloseTo(2 / 3, 12);
    expect(f.coldStartMs).toBeCloseTo(2000, 9);
    // Only second 2: wholly initializing.
    const two = scalingFigures(data(rows, { delayUs: [[2, 500_000]] }), INPUT);
    expect(two.coldStartShare).toBe(1);
    expect(two.coldStartMs).toBe(500);
    // Only second 1: its first half nearer the sample at 1000, its second nearer 2000.
    const one = scalingFigures(data(rows, { delayUs: [[1, 800_000]] }), INPUT);
    expect(one.coldStartShare).toBe(0.5);
    expect(one.coldStartMs).toBe(400);
  });

  it('read the cold start within the sampled span only, and clamp at its ends', () => {
    const rows: Row[] = [
      [1500, 0, 1, 2, 1, 1],
      [2500, 0, 1, 2, 1, 1],
    ];
    // Second 1 (1000..2000) is sampled from 1500; second 3 not at all; second 2 up to 2500.
    const f = scalingFigures(
      data(rows, {
        delayUs: [
          [1, 1_000_000],
          [2, 1_000_000],
          [3, 1_000_000],
        ],
      }),
      INPUT,
    );
    expect(f.coldStartShare).toBe(1);
    expect(f.coldStartMs).toBe(1000);
    const outside = scalingFigures(data(rows, { delayUs: [[3, 1_000_000]] }), INPUT);
    expect(outside.coldStartShare).toBeNull();
    expect(outside.notMeasured.coldStartShare).toBe('no job waited in the queue while /health was sampled');
  });

  it('read a cold start starting and ending between samples, on each side of the midpoint', () => {
    const rows: Row[] = [
      [0, 0, 1, 0, 1, 1],
      [1000, 0, 1, 4, 1, 1],
      [2000, 0, 1, 0, 1, 1],
      [3000, 0, 1, 0, 1, 1],
    ];
    // Initializing from 500 to 1500 by the nearest sample; waits of 1 s per second, 0 to 3.
    const at = (sec: number): number | null =>
      scalingFigures(data(rows, { delayUs: [[sec, 1_000_000]] }), INPUT).coldStartShare;
    expect(at(0)).toBe(0.5);
    expect(at(1)).toBe(0.5);
    expect(at(2)).toBe(0);
    const all = scalingFigures(
      data(rows, {
        delayUs: [
          [0, 1_000_000],
          [1, 1_000_000],
          [2, 1_000_000],
        ],
      }),
      INPUT,
    );
    expect(all.coldStartShare).toBeCloseTo(1 / 3, 12);
    expect(all.coldStartMs).toBeCloseTo(1000, 9);
  });

  it('read a cold start between two samples far apart by the nearer one, past the midpoint too', () => {
    const first: Row[] = [
      [0, 0, 1, 1, 1, 1],
      [1600, 0, 1, 0, 1, 1],
    ];
    // Initializing up to the midpoint at 800: 0.8 of second 0.
    expect(scalingFigures(data(first, { delayUs: [[0, 1_000_000]] }), INPUT).coldStartShare).toBeCloseTo(
      0.8,
      12,
    );
    const second: Row[] = [
      [0, 0, 1, 0, 1, 1],
      [1600, 0, 1, 1, 1, 1],
    ];
    // Initializing from the midpoint: 0.2 of second 0, all of second 1 up to the last sample.
    expect(scalingFigures(data(second, { delayUs: [[0, 1_000_000]] }), INPUT).coldStartShare).toBeCloseTo(
      0.2,
      12,
    );
    expect(scalingFigures(data(second, { delayUs: [[1, 1_000_000]] }), INPUT).coldStartShare).toBe(1);
  });

  it('read a sample’s initializing up to the midpoint to the next, from either side of it', () => {
    // Initializing shown at 1000, not at 4000: initializing from 1000 up to the midpoint at 2500.
    const rows: Row[] = [
      [1000, 0, 1, 2, 1, 1],
      [4000, 0, 1, 0, 1, 1],
    ];
    const share = (sec: number): number | null =>
      scalingFigures(data(rows, { delayUs: [[sec, 1_000_000]] }), INPUT).coldStartShare;
    // Second 1 ends before the midpoint; second 2 straddles it; second 3 lies after it.
    expect(share(1)).toBe(1);
    expect(share(2)).toBe(0.5);
    expect(share(3)).toBe(0);
    const late: Row[] = [
      [1000, 0, 1, 0, 1, 1],
      [4000, 0, 1, 2, 1, 1],
    ];
    const lateShare = (sec: number): number | null =>
      scalingFigures(data(late, { delayUs: [[sec, 1_000_000]] }), INPUT).coldStartShare;
    expect(lateShare(1)).toBe(0);
    expect(lateShare(2)).toBe(0.5);
    expect(lateShare(3)).toBe(1);
  });

  it('need workers.initializing in every sample for a cold start', () => {
    const rows: Row[] = [
      [0, 0, 1, 1, 1, 1],
      [1000, 0, 1, undefined, 1, 1],
    ];
    const f = scalingFigures(data(rows, { delayUs: [[0, 1_000_000]] }), INPUT);
    expect(f.coldStartShare).toBeNull();
    expect(f.coldStartMs).toBeNull();
    expect(f.notMeasured.coldStartShare).toBe("the target's /health has no workers.initializing");
  });

  it('integrate billed workers over time for worker-seconds, mean, peak and cost', () => {
    const rows: Row[] = [
      [1000, 1, 1, 2, 0, 0], // 4 billed for 0.5 s
      [1500, 0, 1, 0, 0, 0], // 1 for 1.5 s
      [3000, 9, 0, 0, 0, 0], // the last sample spans no time
    ];
    const f = scalingFigures(data(rows, { pricePerWorkerSecond: 0.5, currency: 'EUR' }), {
      originMs: 0,
      completed: 4,
    });
    expect(f.workerSeconds).toBe(3.5);
    expect(f.meanWorkers).toBe(1.75);
    expect(f.peakWorkers).toBe(9);
    expect(f.cost).toBe(1.75);
    expect(f.costPer1kJobs).toBe(437.5);
    expect(f.currency).toBe('EUR');
    expect(f.notMeasured).toMatchObject({});
    expect(f.notMeasured.cost).toBeUndefined();
    expect(f.notMeasured.costPer1kJobs).toBeUndefined();
  });

  it('give no cost per 1,000 jobs when none completed, and no cost without a price', () => {
    const rows: Row[] = [
      [0, 1, 0, 0, 0, 0],
      [1000, 1, 0, 0, 0, 0],
    ];
    const priced = scalingFigures(data(rows, { pricePerWorkerSecond: 2 }), INPUT);
    expect(priced.cost).toBe(2);
    expect(priced.costPer1kJobs).toBeNull();
    expect(priced.notMeasured.costPer1kJobs).toBe('no job completed');
    expect(priced).not.toHaveProperty('currency');
    const free = scalingFigures(data(rows), { originMs: 0, completed: 3 });
    expect(free.workerSeconds).toBe(1);
    expect([free.cost, free.costPer1kJobs]).toEqual([null, null]);
    expect(free.notMeasured.cost).toBe('no scaling.pricePerWorkerSecond in the scenario');
    expect(free.notMeasured.costPer1kJobs).toBe('no scaling.pricePerWorkerSecond in the scenario');
  });

  it('integrate nothing over one sample, or samples at one instant', () => {
    for (const rows of [
      [[0, 2, 1, 0, 0, 0]],
      [
        [5, 2, 1, 0, 0, 0],
        [5, 3, 1, 0, 0, 0],
      ],
    ] as Row[][]) {
      const f = scalingFigures(data(rows, { pricePerWorkerSecond: 1 }), { originMs: 0, completed: 1 });
      expect(f.peakWorkers).toBe(rows.length === 1 ? 3 : 4);
      expect([f.workerSeconds, f.meanWorkers, f.cost, f.costPer1kJobs]).toEqual([null, null, null, null]);
      const why = 'one /health sample: no time to integrate over';
      expect(f.notMeasured).toMatchObject({
        workerSeconds: why,
        meanWorkers: why,
        cost: why,
        costPer1kJobs: why,
      });
    }
  });
});

describe('ScalingTrack', () => {
  const ANCHOR = 1_000_000;
  const body = (idle: number, inQueue: number): unknown => ({
    workers: { idle, running: 0 },
    jobs: { inQueue, inProgress: 0 },
  });
  function fed(records: readonly [ExchangeRecord, Partial<JobEvents>?][]): ScalingTrack {
    const t = new ScalingTrack();
    for (const [r, facts] of records) {
      const ev = new JobEvents(0);
      Object.assign(ev, facts ?? {});
      t.add(ANCHOR, r, ev);
    }
    return t;
  }

  it('has nothing to say before a /health, an arrival or a wait', () => {
    expect(new ScalingTrack().toJSON()).toBeUndefined();
    expect(fed([[ex('run', 0, 200), { opened: 'retry' }]]).toJSON()).toBeUndefined();
  });

  it('counts every /health asked, and samples only the readings (a 200 answer with every count)', () => {
    const d = fed([
      [ex('health', 0, 200, body(1, 0))],
      [ex('health', 10, 503, body(2, 0))],
      [ex('health', 20, 199, body(3, 0))],
      [ex('health', 30, 300, body(4, 0))],
      [ex('health', 40, 299, body(5, 0))],
      [ex('health', 50, 200, body(6, 0), { error: { kind: 'reset' } })],
      [ex('health', 60, undefined, undefined, { error: { kind: 'timeout' } })],
      [ex('health', 70, 200, { workers: { idle: 1 } })],
      [ex('status', 80, 200, body(9, 0))],
    ]).toJSON();
    expect(d?.asked).toBe(8);
    expect(d?.samples.idle).toEqual([1]);
    expect(d?.samples.atMs).toEqual([ANCHOR + 5]);
  });

  it('keeps the samples in time order whatever order they came in', () => {
    const d = fed([
      [ex('health', 100, 200, body(1, 0))],
      [ex('health', 50, 200, body(2, 0))],
      [ex('health', 200, 200, body(3, 0))],
    ]).toJSON();
    expect(d?.samples.idle).toEqual([2, 1, 3]);
    const last = fed([[ex('health', 100, 200, body(1, 0))], [ex('health', 50, 200, body(2, 0))]]).toJSON();
    expect(last?.samples.idle).toEqual([2, 1]);
    const inOrder = fed([
      [ex('health', 0, 200, body(1, 0))],
      [ex('health', 0, 200, body(1, 0))],
      [ex('health', 10, 200, body(2, 0))],
    ]).toJSON();
    expect(inOrder?.samples.idle).toEqual([1, 1, 2]);
  });

  it('takes the latest accepted submission as the last arrival', () => {
    const d = fed([
      [ex('run', 500, 200), { opened: 'submit' }],
      [ex('run', 100, 200), { opened: 'submit' }],
      [ex('retry', 900, 200), { opened: 'retry' }],
    ]).toJSON();
    expect(d?.lastArrivalMs).toBe(ANCHOR + 505);
    expect(d?.asked).toBe(0);
  });

  it('spreads a measured job’s wait over the seconds from its submission, in whole µs', () => {
    // Opened 1,750 ms before its final answer at 2,005: the wait runs 255 ..1,755.
    const d = fed([
      [ex('status', 2000, 200), { final: 'COMPLETED', sinceOpenMs: 1750, delayMs: 1500 }],
    ]).toJSON();
    expect(d?.delayUs).toEqual([
      [1000, 745_000],
      [1001, 755_000],
    ]);
    expect(d?.lastArrivalMs).toBeNull();
  });

  it('gives a wait ending exactly on a second’s edge nothing in the next second', () => {
    // Opened at 500, waited 500 ms: the wait ends at 1,000, where second 1001 begins.
    const d = fed([
      [
        ex('status', 2000, 200, undefined, { took: 0 }),
        { final: 'COMPLETED', sinceOpenMs: 1500, delayMs: 500 },
      ],
    ]).toJSON();
    expect(d?.delayUs).toEqual([[1000, 500_000]]);
  });

  it('adds no wait for a warm job, a job with no or no positive delay, or no final answer', () => {
    expect(
      fed([
        [ex('status', 2000, 200), { final: 'COMPLETED', sinceOpenMs: 100, delayMs: 50, warm: true }],
        [ex('status', 2000, 200), { final: 'COMPLETED', sinceOpenMs: 100 }],
        [ex('status', 2000, 200), { final: 'FAILED', sinceOpenMs: 100, delayMs: 0 }],
        [ex('status', 2000, 200), { sinceOpenMs: 100, delayMs: 50 }],
      ]).toJSON(),
    ).toBeUndefined();
  });

  it('stops spreading a wait an hour after the submission', () => {
    const d = fed([
      [
        ex('status', 0, 200, undefined, { took: 0 }),
        { final: 'COMPLETED', sinceOpenMs: 0, delayMs: 3_605_000 },
      ],
    ]).toJSON();
    expect(d?.delayUs.length).toBe(3601);
    expect(d?.delayUs.at(-1)).toEqual([1000 + 3600, 1_000_000]);
    expect(d?.delayUs.every(([, us]) => us === 1_000_000)).toBe(true);
  });

  it('merges in either order: asked adds, samples join in time order, waits add, the latest arrival wins', () => {
    const a = (): ScalingTrack =>
      fed([
        [ex('health', 0, 200, body(1, 0))],
        [ex('health', 2000, 200, body(3, 0))],
        [ex('run', 100, 200), { opened: 'submit' }],
        [ex('status', 1500, 200), { final: 'COMPLETED', sinceOpenMs: 500, delayMs: 200 }],
      ]);
    const b = (): ScalingTrack =>
      new ScalingTrack({ pricePerWorkerSecond: 0.25, currency: 'USD' }).merge(
        fed([
          [ex('health', 1000, 200, body(2, 0))],
          [ex('health', 3000, 500, body(2, 0))],
          [ex('run', 2500, 200), { opened: 'submit' }],
          [ex('status', 1500, 200), { final: 'COMPLETED', sinceOpenMs: 500, delayMs: 300 }],
        ]),
      );
    const ab = a().merge(b()).toJSON();
    const ba = b().merge(a()).toJSON();
    expect(ba).toEqual(ab);
    expect(ab).toEqual({
      asked: 4,
      samples: expect.objectContaining({ idle: [1, 2, 3] }) as unknown,
      delayUs: [[1001, 500_000]],
      lastArrivalMs: ANCHOR + 2505,
      pricePerWorkerSecond: 0.25,
      currency: 'USD',
    });
    // No arrival on either side stays null; one side's arrival is kept.
    expect(
      fed([[ex('health', 0, 200, body(1, 0))]])
        .merge(fed([[ex('health', 0, 200, body(1, 0))]]))
        .toJSON()?.lastArrivalMs,
    ).toBeNull();
    const onlyOther = fed([[ex('health', 0, 200, body(1, 0))]]).merge(
      fed([[ex('run', 0, 200), { opened: 'submit' }]]),
    );
    expect(onlyOther.toJSON()?.lastArrivalMs).toBe(ANCHOR + 5);
  });

  it('keeps its own price over another’s, and leaves out a currency it was not given', () => {
    const mine = new ScalingTrack({ pricePerWorkerSecond: 1 });
    mine.merge(new ScalingTrack({ pricePerWorkerSecond: 2, currency: 'USD' }));
    mine.merge(fed([[ex('run', 0, 200), { opened: 'submit' }]]));
    const d = mine.toJSON();
    expect(d?.pricePerWorkerSecond).toBe(1);
    expect(d).not.toHaveProperty('currency');
    const none = fed([[ex('run', 0, 200), { opened: 'submit' }]]).toJSON();
    expect(none).not.toHaveProperty('pricePerWorkerSecond');
    expect(none).not.toHaveProperty('currency');
  });

  it('survives a JSON round trip, price and currency included', () => {
    const t = new ScalingTrack({ pricePerWorkerSecond: 0.5, currency: 'EUR' }).merge(
      fed([
        [ex('health', 300, 200, body(2, 1))],
        [ex('health', 100, 200, body(1, 1))],
        [ex('run', 100, 200), { opened: 'submit' }],
        [ex('status', 2500, 200), { final: 'COMPLETED', sinceOpenMs: 2000, delayMs: 1200 }],
      ]),
    );
    const d = t.toJSON();
    if (!d) throw new Error('no data');
    const back = ScalingTrack.fromJSON(JSON.parse(JSON.stringify(d)) as ScalingData);
    expect(back.toJSON()).toEqual(d);
    const noCurrency = ScalingTrack.fromJSON({ ...d, currency: undefined });
    expect(noCurrency.toJSON()).not.toHaveProperty('currency');
    const unpriced: ScalingData = { ...d };
    delete unpriced.pricePerWorkerSecond;
    delete unpriced.currency;
    expect(ScalingTrack.fromJSON(unpriced).toJSON()).toEqual(unpriced);
    expect(ScalingTrack.fromJSON(unpriced).toJSON()).not.toHaveProperty('pricePerWorkerSecond');
    // Unpriced, it takes the price of a track merged into it.
    const takes = ScalingTrack.fromJSON(unpriced).merge(new ScalingTrack({ pricePerWorkerSecond: 3 }));
    expect(takes.toJSON()?.pricePerWorkerSecond).toBe(3);
    // Two entries for one second (a hand-written file) add up.
    const twice = ScalingTrack.fromJSON({
      ...unpriced,
      delayUs: [
        [5, 10],
        [5, 20],
      ],
    }).toJSON();
    expect(twice?.delayUs).toEqual([[5, 30]]);
  });
});
