import { describe, expect, it } from 'vitest';
import type { JobstormRecord, WebhookRecord } from '../../src/core/record.js';
import { ex, job, runRecord, sortByEnd, webhook } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/**
 * A delivery whose body names no job (the vendor's local `{output}`) is read as the job's whose
 * webhook URL it came to, when the receiver marked it `adaptedShape: 'no-id'` (not in a strict run).
 */
function check(records: JobstormRecord[]): Map<string, number> {
  const c = new FoldedChecker(runRecord());
  for (const r of sortByEnd(records)) c.add(r);
  return new Map(c.finish().violations.map((g) => [g.id, g.count]));
}

const URL_OF = (n: number): string => `http://127.0.0.1:1/webhook/j.${String(n)}`;
const done = (id: string) => job(id, 'COMPLETED', { delayTime: 10, executionTime: 20, output: {} });
const later = ex('health', 120_000, 200, {
  jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
  workers: { idle: 1, running: 0 },
});

/** A silent delivery to job `n`'s URL; `adapted` false is what a strict run's receiver records. */
function silent(at: number, n: number, adapted = true): WebhookRecord {
  const r = webhook(at, 'unused', 200, { output: { ok: true } });
  delete r.jobId;
  return { ...r, path: `/webhook/j.${String(n)}`, ...(adapted ? { adaptedShape: 'no-id' as const } : {}) };
}

describe('webhook deliveries read by their URL', () => {
  const runFor = (id: string, n: number) =>
    ex('run', 0, 200, job(id, 'IN_QUEUE'), { jobId: id, req: { webhook: URL_OF(n) } });
  const finalOf = (id: string) => ex('status', 1000, 200, done(id), { jobId: id });

  it('each job gets the deliveries to its own URL: one each is no finding, a second is webhook.duplicate', () => {
    const once = check([
      runFor('a', 1),
      runFor('b', 2),
      finalOf('a'),
      finalOf('b'),
      silent(1100, 1),
      silent(1100, 2),
      later,
    ]);
    expect(once.get('webhook.missing')).toBeUndefined();
    expect(once.get('webhook.duplicate')).toBeUndefined();
    const twice = check([
      runFor('a', 1),
      runFor('b', 2),
      finalOf('a'),
      finalOf('b'),
      silent(1100, 1),
      silent(1200, 1),
      silent(1100, 2),
      later,
    ]);
    expect(twice.get('webhook.duplicate')).toBe(1);
    expect(twice.get('webhook.schema')).toBe(3);
  });

  it("a delivery before its submission's answer (the local /runsync posts, then answers) waits for it", () => {
    const early = silent(500, 7);
    const runsync = ex('runsync', 0, 200, done('s'), { jobId: 's', req: { webhook: URL_OF(7) }, took: 900 });
    expect(early.at).toBeLessThan(runsync.endAt);
    expect(check([early, runsync, later]).get('webhook.missing')).toBeUndefined();
    expect(check([early, silent(600, 7), runsync, later]).get('webhook.duplicate')).toBe(1);
  });

  it("unmarked (strict) or to a URL no job was given: no job's delivery, so the job has none", () => {
    expect(check([runFor('a', 1), finalOf('a'), silent(1100, 1, false), later]).get('webhook.missing')).toBe(
      1,
    );
    expect(check([runFor('a', 1), finalOf('a'), silent(1100, 9), later]).get('webhook.missing')).toBe(1);
  });
});
