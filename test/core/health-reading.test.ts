import { describe, expect, it } from 'vitest';
import { countsText } from '../../src/check/counts-text.js';
import {
  finishedOf,
  healthReadingOf,
  jobsInSystem,
  readHealth,
  workersOf,
  type HealthRejection,
} from '../../src/core/health-reading.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { ex } from '../check/records.js';

/*
 * The one reading of a /health answer (DESIGN rule 9): what makes it usable, and each reason one
 * is not, as the checks, the metrics, the exports and the capacity search all take it.
 */

const JOBS = { completed: 5, failed: 1, inProgress: 2, inQueue: 3, retried: 4 };
const WORKERS = { idle: 1, running: 2 };
const body = (jobs: Record<string, unknown> = JOBS, workers: Record<string, unknown> = WORKERS) => ({
  jobs,
  workers,
});
const health = (b: unknown, extra: Partial<ExchangeRecord> = {}) => ex('health', 0, 200, b, extra);

interface Rejected {
  why: string;
  record: ExchangeRecord;
  reason: HealthRejection;
  field?: string;
  value?: unknown;
}

const REJECTED: Rejected[] = [
  { why: 'another operation', record: ex('status', 0, 200, body()), reason: 'not-health' },
  { why: 'no answer', record: ex('health', 0, undefined), reason: 'unanswered' },
  {
    why: 'a body cut short',
    record: health(body(), { error: { kind: 'reset', code: 'ECONNRESET' } }),
    reason: 'unanswered',
  },
  { why: 'a 500', record: ex('health', 0, 500, body()), reason: 'status' },
  { why: 'a 2xx other than 200', record: ex('health', 0, 204, body()), reason: 'status' },
  { why: 'a 401 error body', record: ex('health', 0, 401, { error: 'unauthorized' }), reason: 'status' },
  { why: 'no body', record: health(undefined), reason: 'no-groups' },
  { why: 'an array', record: health([body()]), reason: 'no-groups' },
  { why: 'no workers', record: health({ jobs: JOBS }), reason: 'no-groups' },
  { why: 'no jobs', record: health({ workers: WORKERS }), reason: 'no-groups' },
  { why: 'workers null', record: health({ jobs: JOBS, workers: null }), reason: 'no-groups' },
  {
    why: 'a negative gauge',
    record: health(body({ ...JOBS, inQueue: -1 })),
    reason: 'negative',
    field: 'jobs.inQueue',
    value: -1,
  },
  {
    why: 'a negative counter',
    record: health(body({ ...JOBS, retried: -2 })),
    reason: 'negative',
    field: 'jobs.retried',
    value: -2,
  },
  {
    why: 'a negative worker state no consumer reads',
    record: health(body(JOBS, { ...WORKERS, unhealthy: -1 })),
    reason: 'negative',
    field: 'workers.unhealthy',
    value: -1,
  },
  {
    why: 'jobs first: the first negative named',
    record: health(body({ ...JOBS, failed: -3 }, { ...WORKERS, idle: -4 })),
    reason: 'negative',
    field: 'jobs.failed',
    value: -3,
  },
  ...(['inQueue', 'inProgress'] as const).map((k) => ({
    why: `no jobs.${k}`,
    record: health(body({ ...JOBS, [k]: undefined })),
    reason: 'missing' as const,
    field: `jobs.${k}`,
  })),
  ...(['idle', 'running'] as const).map((k) => ({
    why: `no workers.${k}`,
    record: health(body(JOBS, { ...WORKERS, [k]: undefined })),
    reason: 'missing' as const,
    field: `workers.${k}`,
  })),
  ...['1', 1.5, Number.POSITIVE_INFINITY, Number.NaN, null, true].map((value) => ({
    why: `workers.running = ${String(value)}`,
    record: health(body(JOBS, { ...WORKERS, running: value })),
    reason: 'not-a-count' as const,
    field: 'workers.running',
    value,
  })),
];

describe('readHealth rejects', () => {
  it.each(REJECTED.map((c) => [c.why, c] as const))('%s', (_why, c) => {
    const read = readHealth(c.record);
    expect(read).toEqual({
      ok: false,
      reason: c.reason,
      ...(c.field === undefined ? {} : { field: c.field }),
      ...('value' in c ? { value: c.value } : {}),
    });
    expect(healthReadingOf(c.record)).toBeUndefined();
  });
});

describe('readHealth accepts', () => {
  it('a 200 answer with every count, each as reported', () => {
    const r = health(body(JOBS, { ...WORKERS, initializing: 6, throttled: 7, unhealthy: 0 }));
    expect(readHealth(r)).toEqual({
      ok: true,
      reading: { record: r, ...JOBS, ...WORKERS, initializing: 6, throttled: 7 },
    });
  });

  it("the SPEC's table alone, with no initializing or throttled workers (some servers have none)", () => {
    const r = health(body());
    const reading = healthReadingOf(r);
    expect(reading).toEqual({ record: r, ...JOBS, ...WORKERS });
    expect(reading).not.toHaveProperty('initializing');
    expect(reading).not.toHaveProperty('throttled');
  });

  it('zeros: an idle endpoint is a reading', () => {
    const zeros = { inQueue: 0, inProgress: 0 };
    expect(healthReadingOf(health(body(zeros, { idle: 0, running: 0 })))).toMatchObject({
      ...zeros,
      idle: 0,
      running: 0,
    });
  });

  it('the four gauges without the cumulative counters, which are then left out', () => {
    const r = health(body({ inQueue: 1, inProgress: 0 }));
    expect(healthReadingOf(r)).toEqual({ record: r, inQueue: 1, inProgress: 0, ...WORKERS });
  });

  it('leaves out a counter that is not a count (the schema check reports the body), keeping the rest', () => {
    const r = health(body({ ...JOBS, completed: '5' }, { ...WORKERS, initializing: 1.5 }));
    const reading = healthReadingOf(r);
    expect(reading).toMatchObject({ inQueue: 3, failed: 1, retried: 4 });
    expect(reading).not.toHaveProperty('completed');
    expect(reading).not.toHaveProperty('initializing');
  });

  it('ignores fields it does not know that are not negative', () => {
    const r = health({ jobs: { ...JOBS, extra: 'x' }, workers: { ...WORKERS, ready: 9 }, other: -1 });
    expect(healthReadingOf(r)).toEqual({ record: r, ...JOBS, ...WORKERS });
  });
});

describe('what a reading says', () => {
  const of = (jobs: Record<string, unknown>, workers: Record<string, unknown>) => {
    const reading = healthReadingOf(health(body(jobs, workers)));
    if (!reading) throw new Error('no reading');
    return reading;
  };

  it('workers: idle, running and initializing; jobs in the system: queued and running', () => {
    const s = of({ inQueue: 7, inProgress: 2 }, { idle: 2, running: 3, initializing: 4, throttled: 5 });
    expect(workersOf(s)).toBe(9);
    expect(jobsInSystem(s)).toBe(9);
    expect(countsText(s)).toBe('9 workers (2 idle, 3 running, 4 initializing), 7 jobs in queue');
  });

  it('says nothing of initializing workers a server does not report', () => {
    const s = of({ inQueue: 0, inProgress: 0 }, { idle: 2, running: 3 });
    expect(workersOf(s)).toBe(5);
    expect(countsText(s)).toBe('5 workers (2 idle, 3 running), 0 jobs in queue');
  });

  it('finished jobs only when both completed and failed are reported', () => {
    expect(finishedOf(of(JOBS, WORKERS))).toBe(6);
    expect(finishedOf(of({ inQueue: 0, inProgress: 0, completed: 5 }, WORKERS))).toBeUndefined();
    expect(finishedOf(of({ inQueue: 0, inProgress: 0, failed: 5 }, WORKERS))).toBeUndefined();
  });
});
