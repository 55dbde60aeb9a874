import { describe, expect, it } from 'vitest';
import { countsText, healthSample, workersOf } from '../../src/check/health-sample.js';
import { ex } from './records.js';

/*
 * The worker and queue counts the scaling rules read from a /health answer: only counts that are
 * finite numbers of at least 0, and only from a 200 /health answer with all three required.
 */

const body = (workers: Record<string, unknown>, jobs: Record<string, unknown>) => ({ workers, jobs });
const read = (b: unknown, status = 200, op: 'health' | 'status' = 'health') => ex(op, 0, status, b);

describe('healthSample', () => {
  it('reads idle, running and queued, with initializing and finished when reported', () => {
    const r = read(body({ idle: 2, running: 3, initializing: 1 }, { inQueue: 4, completed: 5, failed: 6 }));
    expect(healthSample(r)).toEqual({
      record: r,
      idle: 2,
      running: 3,
      initializing: 1,
      inQueue: 4,
      finished: 11,
    });
  });

  it('leaves out initializing when not reported, and finished unless both completed and failed are', () => {
    const r = read(body({ idle: 0, running: 0 }, { inQueue: 0, completed: 5 }));
    const s = healthSample(r);
    expect(s).toEqual({ record: r, idle: 0, running: 0, inQueue: 0 });
    expect(s).not.toHaveProperty('initializing');
    expect(s).not.toHaveProperty('finished');
    expect(healthSample(read(body({ idle: 0, running: 0 }, { inQueue: 0, failed: 5 })))).not.toHaveProperty(
      'finished',
    );
  });

  it('needs a 200 /health answer', () => {
    const b = body({ idle: 1, running: 1 }, { inQueue: 1 });
    expect(healthSample(read(b, 500))).toBeUndefined();
    expect(healthSample(read(b, 200, 'status'))).toBeUndefined();
    expect(healthSample(read(b))).toBeDefined();
  });

  it('needs idle, running and inQueue, each a finite count of at least 0', () => {
    const ok = { idle: 1, running: 1, inQueue: 1 };
    const sample = (o: Record<string, unknown>) =>
      healthSample(read(body({ idle: o.idle, running: o.running }, { inQueue: o.inQueue })));
    for (const key of ['idle', 'running', 'inQueue']) {
      for (const bad of [undefined, -1, Number.POSITIVE_INFINITY, Number.NaN, '1'])
        expect(sample({ ...ok, [key]: bad }), `${key} = ${String(bad)}`).toBeUndefined();
      expect(sample({ ...ok, [key]: 0 })).toBeDefined();
    }
    expect(healthSample(read(undefined))).toBeUndefined();
    expect(healthSample(read({ jobs: { inQueue: 1 } }))).toBeUndefined();
    expect(healthSample(read({ workers: { idle: 1, running: 1 } }))).toBeUndefined();
  });

  it('drops an initializing or finished count that is not a count', () => {
    const s = healthSample(
      read(body({ idle: 1, running: 1, initializing: -1 }, { inQueue: 1, completed: 1, failed: -1 })),
    );
    expect(s).not.toHaveProperty('initializing');
    expect(s).not.toHaveProperty('finished');
  });
});

describe('workersOf and countsText', () => {
  it('count idle, running and initializing workers', () => {
    const s = healthSample(read(body({ idle: 2, running: 3, initializing: 4 }, { inQueue: 7 })));
    expect(s && workersOf(s)).toBe(9);
    expect(s && countsText(s)).toBe('9 workers (2 idle, 3 running, 4 initializing), 7 jobs in queue');
  });

  it('say nothing of initializing workers a server does not report', () => {
    const s = healthSample(read(body({ idle: 2, running: 3 }, { inQueue: 0 })));
    expect(s && workersOf(s)).toBe(5);
    expect(s && countsText(s)).toBe('5 workers (2 idle, 3 running), 0 jobs in queue');
  });
});
