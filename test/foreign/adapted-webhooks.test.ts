import { afterEach, describe, expect, it } from 'vitest';
import type { ExchangeRecord, WebhookRecord } from '../../src/core/record.js';
import { DEVIATIONS_TITLE, deviations } from '../../src/report/deviation-lines.js';
import { cliClock } from '../helpers/cli-on-clock.js';
import { exchanges, expectRealEvidence, runForeign, type ForeignOutcome } from './foreign-run.js';
import { startWebhookServer, type WebhookServer, type WebhookServerOptions } from './webhook-server.js';

/**
 * Issue 37, body shapes: the vendor's local test server posts a webhook body of the handler's
 * result alone (`{output}`: no id, no status; real-service.md "webhook body differs locally
 * (#409)"). Read as the contract's body, such a delivery is no job's, so every job's webhook rules
 * go unjudged. The run reports it once (`webhook.schema`), then reads each delivery as the job's
 * whose webhook URL it came to, marked `adaptedShape: 'no-id'`; --strict reports it and no more.
 * Each run is in-process on a manual clock the server in this thread reads too (issue 46): its jobs
 * age and its deliveries go out on the run's time, so 3 s of webhooks pass as fast as loopback answers.
 */
let server: WebhookServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SCENARIO = 'scenarios/webhooks.yaml';
const ARGS = ['--duration', '3s', '--quiet'];
const ENV = { JOBSTORM_API_KEY: 'foreign-test-key' };

/** The run adapted, then --strict, against one server; both on the clock the server reads. */
async function both(o: WebhookServerOptions): Promise<{ adapted: ForeignOutcome; strict: ForeignOutcome }> {
  const clock = cliClock();
  server = await startWebhookServer({ ...o, clock });
  const adapted = await runForeign(server.base, SCENARIO, ARGS, ENV, clock);
  const strict = await runForeign(server.base, SCENARIO, [...ARGS, '--strict'], ENV, clock);
  return { adapted, strict };
}

const deliveries = (o: ForeignOutcome): WebhookRecord[] =>
  o.records.filter((r): r is WebhookRecord => r.type === 'webhook');

/** Each finding one line of the leading list, citing a record of the run. */
function expectDeviationsLead(o: ForeignOutcome, ids: string[]): void {
  expect(deviations(o.summary).map((d) => d.id)).toEqual(expect.arrayContaining(ids));
  expect(deviations(o.summary)).toHaveLength(ids.length);
  const section = o.md.slice(o.md.indexOf(DEVIATIONS_TITLE), o.md.indexOf('### Violations'));
  expect(o.md.indexOf(DEVIATIONS_TITLE)).toBeGreaterThan(-1);
  for (const id of ids)
    expect(
      section.split('\n').filter((l) => l.startsWith(`- ${id}`)),
      id,
    ).toHaveLength(1);
  expectRealEvidence(o);
}

describe('a server whose webhook body names no job (the local form)', () => {
  it('adapted: webhook.schema once, each delivery read by its URL, so a second delivery is webhook.duplicate; strict: the schema only', async () => {
    const { adapted, strict } = await both({ silentBody: true, deliveries: 2 });
    expect(adapted.fired).toEqual(['webhook.duplicate', 'webhook.schema']);
    expectDeviationsLead(adapted, ['webhook.schema', 'webhook.duplicate']);
    const schema = adapted.summary.violations.find((v) => v.id === 'webhook.schema');
    expect(schema?.examples[0]?.message).toContain('reads each such delivery as the job whose webhook URL');
    expect(deviations(adapted.summary).find((d) => d.id === 'webhook.schema')?.message).not.toContain(
      'jobstorm',
    );
    // Every delivery is marked with the form it was read in, and went to its own job's URL.
    const got = deliveries(adapted);
    expect(got.length).toBeGreaterThan(10);
    for (const d of got) {
      expect(d.adaptedShape).toBe('no-id');
      expect(d.jobId).toBeUndefined();
    }
    // The duplicate cites the second delivery to the URL one /run was given, and names that job.
    const dup = adapted.summary.violations.find((v) => v.id === 'webhook.duplicate')?.examples[0];
    const cited = got.find((d) => d.seq === dup?.evidence.seq);
    const submit = exchanges(adapted).find(
      (r: ExchangeRecord) => r.op === 'run' && r.req?.webhook?.endsWith(cited?.path ?? '-') === true,
    );
    expect(submit).toBeDefined();
    expect(dup?.message).toContain(
      `job ${String((submit?.body as { id?: string } | undefined)?.id)}'s webhook`,
    );
    expect(got.filter((d) => d.path === cited?.path)).toHaveLength(2);
    expect(adapted.summary.coverage['webhook.duplicate']).toBeGreaterThan(5);

    // Strict: reported, not read. No delivery is a job's, so no webhook rule could be judged.
    expect(strict.fired).toEqual(['webhook.schema']);
    expect(deliveries(strict).length).toBeGreaterThan(10);
    expect(deliveries(strict).some((d) => d.adaptedShape !== undefined)).toBe(false);
    expect(strict.summary.violations[0]?.examples[0]?.message).not.toContain('jobstorm');
    expect(strict.summary.coverage['webhook.duplicate'] ?? 0).toBe(0);
    expectDeviationsLead(strict, ['webhook.schema']);
  }, 120_000);

  it('delivered once: webhook.schema alone, adapted or strict (no finding from the reading itself)', async () => {
    const { adapted, strict } = await both({ silentBody: true });
    expect(adapted.fired).toEqual(['webhook.schema']);
    expect(adapted.summary.coverage['webhook.duplicate']).toBeGreaterThan(5);
    expect(strict.fired).toEqual(['webhook.schema']);
  }, 120_000);
});

describe('bodies that name their job', () => {
  it('a server posting the /status body twice: webhook.duplicate either way, nothing read by URL', async () => {
    const { adapted, strict } = await both({ deliveries: 2 });
    expect(adapted.fired).toEqual(['webhook.duplicate']);
    expect(strict.fired).toEqual(['webhook.duplicate']);
    expect(deliveries(adapted).some((d) => d.adaptedShape !== undefined)).toBe(false);
  }, 120_000);

  it('the faithful emulator: no finding, adapted or strict, and every job of ours has a URL of its own', async () => {
    // The embedded emulator, in this thread on each run's manual clock.
    const adapted = await runForeign('', SCENARIO, ARGS, ENV, cliClock());
    const strict = await runForeign('', SCENARIO, [...ARGS, '--strict'], ENV, cliClock());
    expect(adapted.fired).toEqual([]);
    expect(strict.fired).toEqual([]);
    const urls = exchanges(adapted).flatMap((r) => (r.op === 'run' && r.req?.webhook ? [r.req.webhook] : []));
    expect(urls.length).toBeGreaterThan(10);
    expect(new Set(urls).size).toBe(urls.length);
    expect(adapted.summary.coverage['webhook.duplicate']).toBeGreaterThan(5);
  }, 120_000);
});
