import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG } from '../../src/check/catalog.js';
import { webhookCheck } from '../../src/check/checks/webhook-check.js';
import { WebhookOwners } from '../../src/check/webhook-owners.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { ex, job, runRecord, sortByEnd, webhook } from './records.js';
import { done, final, submit, until } from './webhook-job.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * What the webhook checks judge, not only what they find (issue 39): a report calls a rule passed
 * only when it judged something, so each rule must judge exactly the deliveries its contract
 * covers. The defaults: a webhook is missing 30 s after the final state; a non-200 answer brings 2
 * retries 10 s ± 3 s apart, all due 20 s + 2 × 3 s after the first attempt; a 200 ends it.
 */

const IDS = [
  'webhook.missing',
  'webhook.schema',
  'webhook.status-mismatch',
  'webhook.retry-count',
  'webhook.retry-spacing',
  'webhook.duplicate',
] as const;

interface Outcome {
  found: Record<string, number>;
  judged: Record<string, number>;
  messages: Record<string, string | undefined>;
  cited: Record<string, number | undefined>;
}

function check(records: JobstormRecord[]): Outcome {
  const c = new FoldedChecker(runRecord());
  for (const r of sortByEnd(records)) c.add(r);
  const result = c.finish();
  const judged: Record<string, number> = {};
  for (const id of IDS) if (result.coverage[id]) judged[id] = result.coverage[id];
  return {
    found: Object.fromEntries(result.violations.map((g) => [g.id, g.count])),
    judged,
    messages: Object.fromEntries(result.violations.map((g) => [g.id, g.examples[0]?.message])),
    cited: Object.fromEntries(result.violations.map((g) => [g.id, g.examples[0]?.evidence.seq])),
  };
}

/** Deliveries of job w's final body at `at`, answered as given. */
const tries = (...attempts: [at: number, answered: number][]) =>
  attempts.map(([at, answered]) => webhook(at, 'w', answered, done));

describe('webhook.retry-count, judged once the retries were due or one came too many', () => {
  // First attempt at 1.1 s: both retries due by 21.1 s, plus 2 × 3 s: 27.1 s.
  it('one 500 is not judged until the last retry was due, even on the edge; then it is too few', () => {
    const one = tries([1100, 500]);
    expect(check([submit, final, ...one, until(27_100)]).judged['webhook.retry-count']).toBeUndefined();
    const late = check([submit, final, ...one, until(27_101)]);
    expect(late.judged['webhook.retry-count']).toBe(1);
    expect(late.found).toEqual({ 'webhook.retry-count': 1 });
  });

  it('the three attempts are judged only once the last was due, and then pass', () => {
    const three = tries([1100, 500], [11_100, 500], [21_100, 500]);
    const early = check([submit, final, ...three]);
    expect(early.found).toEqual({});
    expect(early.judged['webhook.retry-count']).toBeUndefined();
    const due = check([submit, final, ...three, until(27_101)]);
    expect(due.found).toEqual({});
    expect(due.judged['webhook.retry-count']).toBe(1);
  });

  it('a fourth attempt is too many before the retries were all due, and is the one cited', () => {
    const four = tries([1100, 500], [9100, 500], [17_100, 500], [25_100, 500]);
    const out = check([submit, final, ...four]);
    expect(out.found).toEqual({ 'webhook.retry-count': 1 });
    expect(out.cited['webhook.retry-count']).toBe(four[3]?.seq);
    expect(out.messages['webhook.retry-count']).toMatch(/tried 4 times .* says 3 in all$/);
    expect(out.judged['webhook.retry-spacing']).toBe(3);
  });

  it('a 200 on the first retry ends it at once: judged, and two attempts are not too few', () => {
    const out = check([submit, final, ...tries([1100, 500], [11_100, 200])]);
    expect(out.found).toEqual({});
    expect(out.judged).toEqual({
      'webhook.missing': 1,
      'webhook.schema': 2,
      'webhook.status-mismatch': 2,
      'webhook.retry-count': 1,
      'webhook.retry-spacing': 1,
      'webhook.duplicate': 1,
    });
  });

  it('a first delivery answered 200 needs no retries: their count and spacing are not judged', () => {
    const out = check([submit, final, ...tries([1100, 200]), until(60_000)]);
    expect(out.found).toEqual({});
    expect(out.judged['webhook.retry-count']).toBeUndefined();
    expect(out.judged['webhook.retry-spacing']).toBeUndefined();
    expect(out.judged['webhook.duplicate']).toBe(1);
  });

  it('counts the attempts up to the 200 only: duplicates after it are neither retries nor spaced', () => {
    const d = tries([1100, 500], [11_100, 200], [11_200, 200], [11_300, 200]);
    const out = check([submit, final, ...d, until(60_000)]);
    expect(out.found).toEqual({ 'webhook.duplicate': 1 });
    expect(out.judged['webhook.retry-spacing']).toBe(1);
    const first = check([submit, final, ...tries([1100, 200], [1200, 200], [1300, 200]), until(60_000)]);
    expect(first.found).toEqual({ 'webhook.duplicate': 1 });
    expect(first.judged['webhook.retry-spacing']).toBeUndefined();
  });

  it("a delivery is record time too: another job's delivery after the last retry was due settles it", () => {
    const two = tries([1100, 500], [11_100, 500]);
    const other = (at: number) => webhook(at, 'z', 200, { ...done, id: 'z' });
    expect(check([submit, final, ...two, other(27_100)]).found).toEqual({});
    expect(check([submit, final, ...two, other(27_101)]).found).toEqual({ 'webhook.retry-count': 1 });
  });
});

describe('webhook.retry-spacing over the attempts up to the first 200', () => {
  it('judges each gap once, and the gap to the 200 too', () => {
    const spaced = check([submit, final, ...tries([1100, 500], [11_100, 500], [21_100, 500]), until(60_000)]);
    expect(spaced.judged['webhook.retry-spacing']).toBe(2);
    const late = check([submit, final, ...tries([1100, 500], [14_101, 200]), until(60_000)]);
    expect(late.found).toEqual({ 'webhook.retry-spacing': 1 });
    expect(late.messages['webhook.retry-spacing']).toMatch(/came 13001 ms after the previous attempt/);
  });

  it('reports a job once, at its first gap out of bounds', () => {
    const out = check([submit, final, ...tries([1100, 500], [2100, 500], [3100, 500]), until(60_000)]);
    expect(out.found).toEqual({ 'webhook.retry-spacing': 1 });
    expect(out.judged['webhook.retry-spacing']).toBe(1);
  });
});

describe('webhook.missing', () => {
  it('is not judged for a job shown final and then not final (a transition fault, not a webhook one)', () => {
    const running = ex('status', 2000, 200, job('w', 'IN_PROGRESS'), { jobId: 'w' });
    const out = check([submit, final, running, until(60_000)]);
    expect(out.found['webhook.missing']).toBeUndefined();
    expect(out.judged['webhook.missing']).toBeUndefined();
  });
});

describe("a retried job's deliveries", () => {
  it('are not judged: each attempt may have sent its own', () => {
    const failed = job('w', 'FAILED', { delayTime: 10, executionTime: 20, error: 'boom' });
    const records = [
      submit,
      ex('status', 1000, 200, failed, { jobId: 'w' }),
      webhook(1100, 'w', 200, failed),
      ex('retry', 2000, 200, job('w', 'IN_QUEUE'), { jobId: 'w' }),
      ex('status', 5000, 200, done, { jobId: 'w' }),
      webhook(5100, 'w', 200, done),
      until(90_000),
    ];
    const out = check(records);
    expect(out.found).toEqual({});
    expect(out.judged).toEqual({ 'webhook.schema': 2 });
  });
});

describe('webhook.schema says what broke', () => {
  it('names the field, or the body itself when it is no object', () => {
    const field = check([submit, final, webhook(1100, 'w', 200, { id: 'w', status: 5 }), until(60_000)]);
    expect(field.messages['webhook.schema']).toMatch(/^webhook body breaks the status schema: status: /);
    const text = check([submit, final, webhook(1100, 'w', 200, 'done'), until(60_000)]);
    expect(text.messages['webhook.schema']).toMatch(/^webhook body breaks the status schema: \(body\): /);
  });

  it('says how a body that names no job is read, only for such a delivery', () => {
    const plain = check([submit, final, webhook(1100, 'w', 200, { id: 'w', status: 5 }), until(60_000)]);
    expect(plain.messages['webhook.schema']).not.toContain('; jobstorm reads');
    const silent = { ...webhook(1100, 'w', 200, { output: {} }), adaptedShape: 'no-id' as const };
    const adapted = check([submit, final, silent, until(60_000)]);
    expect(adapted.messages['webhook.schema']).toMatch(
      /; jobstorm reads each such delivery as the job whose webhook URL it came to/,
    );
  });
});

describe('the webhook check', () => {
  it('owns exactly the webhook ids of the catalog', () => {
    const catalog = CHECK_CATALOG.map((c) => c.id).filter((id) => id.startsWith('webhook.'));
    expect([...webhookCheck().ids].sort()).toEqual([...catalog].sort());
  });

  it('gives a URL it cannot parse no owner, and goes on', () => {
    const owners = new WebhookOwners();
    expect(owners.own('not a url', 'a')).toEqual([]);
    expect(owners.own('http://127.0.0.1:1/webhook/b', 'b')).toEqual([]);
  });
});
