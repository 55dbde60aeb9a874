import { describe, expect, it } from 'vitest';
import type { JobstormRecord } from '../../src/core/record.js';
import { ex, runRecord } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * Where the scaling checks' expectation comes from, on saved records: the run record's `scaling`,
 * replaced by what a POST /v1/endpoints of the run sent when it created the endpoint the run loads.
 */

const health = (at: number, idle: number, running: number, initializing: number, inQueue = 0) =>
  ex('health', at, 200, {
    jobs: { completed: 0, failed: 0, inProgress: running, inQueue, retried: 0 },
    workers: { idle, running, initializing },
  });

function check(
  records: JobstormRecord[],
  scaling = { workersMin: 0, workersMax: 10, source: 'scenario' as const },
) {
  const c = new FoldedChecker(runRecord({ scaling }));
  for (const r of records) c.add(r);
  return c.finish();
}

describe('the scaling expectation', () => {
  it("the run record's workersMax: three workers are within 10", () => {
    const result = check([health(1000, 3, 0, 0), health(2000, 3, 0, 0)]);
    expect(result.coverage['scaling.above-max']).toBe(2);
    expect(result.violations).toEqual([]);
  });

  it('an endpoint the run created with POST /v1/endpoints takes the values that request sent', () => {
    const created = ex(
      'CreateEndpoint',
      500,
      200,
      { id: 'ep', workersMin: 0, workersMax: 2, idleTimeout: 5 },
      {
        reqBody: { templateId: 't', workersMax: 2, idleTimeout: 5 },
      },
    );
    const result = check([created, health(1000, 3, 0, 0)]);
    expect(result.violations.map((g) => g.id)).toEqual(['scaling.above-max']);
    expect(result.violations[0]?.examples[0]?.message).toContain('above workersMax 2');
  });

  it('an endpoint created for another id changes nothing', () => {
    const other = ex(
      'CreateEndpoint',
      500,
      200,
      { id: 'other', workersMax: 2 },
      { reqBody: { workersMax: 2 } },
    );
    expect(check([other, health(1000, 3, 0, 0)]).violations).toEqual([]);
  });

  it('idle workers above workersMin past idleTimeout plus tolerance: a warning, once per stretch', () => {
    const scaling = { workersMin: 1, workersMax: 10, idleTimeoutMs: 2000, source: 'scenario' as const };
    const reads = Array.from({ length: 12 }, (_, i) => health(1000 * (i + 1), 3, 0, 0));
    const result = check(reads, scaling);
    expect(result.violations.map((g) => [g.id, g.severity, g.count])).toEqual([
      ['scaling.no-scale-down', 'warning', 1],
    ]);
  });
});
