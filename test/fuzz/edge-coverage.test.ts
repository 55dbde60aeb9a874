import { describe, expect, it } from 'vitest';
import { EdgeCoverage } from '../../src/fuzz/edge-coverage.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { ex, job } from '../check/records.js';

/*
 * What a fuzz tried, as the state machine's edges: each status change the records show, with what
 * moved it, counted against contracts/queue/states.ts. Records in, a table out.
 */

const shows = (op: 'run' | 'runsync' | 'status' | 'cancel' | 'retry', at: number, id: string, status: string, extra: Partial<ExchangeRecord> = {}) =>
  ex(op, at, 200, job(id, status), { jobId: id, ...extra });

function table(records: ExchangeRecord[]) {
  const c = new EdgeCoverage();
  for (const r of records) c.add(r);
  return c.table();
}

const count = (t: ReturnType<typeof table>, from: string, by: string, to: string): number =>
  t.table.find((row) => row.from === from && row.by === by && row.to === to)?.count ?? 0;

describe('EdgeCoverage', () => {
  it('counts each row of the table a job walked, with what moved it', () => {
    const t = table([
      shows('run', 0, 'a', 'IN_QUEUE'),
      shows('status', 100, 'a', 'IN_PROGRESS'),
      shows('status', 200, 'a', 'FAILED'),
      shows('retry', 300, 'a', 'IN_QUEUE'),
      shows('cancel', 400, 'a', 'CANCELLED'),
      shows('runsync', 0, 'b', 'COMPLETED'),
    ]);
    expect(count(t, 'none', 'run', 'IN_QUEUE')).toBe(1);
    expect(count(t, 'IN_QUEUE', 'server', 'IN_PROGRESS')).toBe(1);
    expect(count(t, 'IN_PROGRESS', 'server', 'FAILED')).toBe(1);
    expect(count(t, 'FAILED', 'retry', 'IN_QUEUE')).toBe(1);
    expect(count(t, 'IN_QUEUE', 'cancel', 'CANCELLED')).toBe(1);
    expect(count(t, 'none', 'runsync', 'COMPLETED')).toBe(1);
    expect(t.calls).toEqual({ 'cancel 200': 1, 'retry 200': 1, 'run 200': 1, 'runsync 200': 1, 'status 200': 2 });
    expect(t.jumps).toEqual([]);
    expect(t.outside).toEqual([]);
  });

  it('tells a purge, a ttl and a retention from the server', () => {
    const t = table([
      shows('run', 0, 'q', 'IN_QUEUE'),
      ex('purge-queue', 50, 200, { removed: 1 }),
      shows('status', 100, 'q', 'CANCELLED'),
      shows('run', 0, 't', 'IN_QUEUE', { req: { ttl: 10_000 } }),
      ex('status', 10_500, 404, undefined, { jobId: 't' }),
      shows('runsync', 0, 'r', 'COMPLETED'),
      ex('status', 61_000, 404, undefined, { jobId: 'r' }),
      shows('run', 0, 'x', 'IN_QUEUE'),
      ex('status', 500, 404, undefined, { jobId: 'x' }),
    ]);
    expect(count(t, 'IN_QUEUE', 'purge', 'CANCELLED')).toBe(1);
    expect(count(t, 'any', 'ttl-expiry', 'deleted')).toBe(1);
    expect(count(t, 'any-final', 'retention-expiry', 'results-gone')).toBe(1);
    // Gone with no deadline passed: outside the table, for a check to judge.
    expect(t.outside).toEqual([{ from: 'IN_QUEUE', by: 'server', to: 'deleted', count: 1 }]);
  });

  it('counts changes seen between two reads as the jumps they were, and what no row allows apart', () => {
    const t = table([
      shows('run', 0, 'a', 'IN_QUEUE'),
      shows('status', 100, 'a', 'COMPLETED'),
      shows('run', 0, 'b', 'IN_QUEUE'),
      shows('status', 100, 'b', 'IN_PROGRESS'),
      shows('retry', 200, 'b', 'IN_QUEUE'),
      shows('run', 0, 'c', 'IN_QUEUE'),
      shows('status', 100, 'c', 'COMPLETED'),
      shows('status', 200, 'c', 'IN_PROGRESS'),
      shows('runsync', 0, 'd', 'FAILED'),
      // Answered IN_QUEUE at the end of its wait, never read again until its results were gone.
      shows('runsync', 0, 'e', 'IN_QUEUE'),
      ex('status', 61_000, 404, undefined, { jobId: 'e' }),
    ]);
    expect(t.jumps).toEqual([
      { from: 'IN_QUEUE', by: 'server', to: 'COMPLETED', count: 2 },
      { from: 'IN_PROGRESS', by: 'retry', to: 'IN_QUEUE', count: 1 },
      { from: 'none', by: 'runsync', to: 'FAILED', count: 1 },
      { from: 'none', by: 'runsync', to: 'IN_QUEUE', count: 1 },
      { from: 'IN_QUEUE', by: 'retention-expiry', to: 'results-gone', count: 1 },
    ]);
    expect(t.outside).toEqual([{ from: 'COMPLETED', by: 'server', to: 'IN_PROGRESS', count: 1 }]);
  });

  it('merges what two trials tried', () => {
    const one = new EdgeCoverage();
    const two = new EdgeCoverage();
    one.add(shows('run', 0, 'a', 'IN_QUEUE'));
    two.add(shows('run', 0, 'b', 'IN_QUEUE'));
    two.add(shows('status', 10, 'b', 'IN_PROGRESS'));
    one.merge(two);
    const t = one.table();
    expect(count(t, 'none', 'run', 'IN_QUEUE')).toBe(2);
    expect(count(t, 'IN_QUEUE', 'server', 'IN_PROGRESS')).toBe(1);
    expect(t.calls).toEqual({ 'run 200': 2, 'status 200': 1 });
  });
});
