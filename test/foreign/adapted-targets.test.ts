import { afterEach, describe, expect, it } from 'vitest';
import { DEVIATIONS_TITLE, deviations } from '../../src/report/deviation-lines.js';
import { cliClock } from '../helpers/cli-on-clock.js';
import { exchanges, expectRealEvidence, runForeign, type ForeignOutcome } from './foreign-run.js';
import { startPartialServer, type PartialOptions, type PartialServer } from './partial-server.js';

/**
 * Issue 37: on a partial server jobstorm names each deviation once, then adapts and keeps judging.
 * Every server here takes /status only by POST (405, Allow: POST), as the vendor's local test
 * server does, plus one deviation of its own that only a run which follows jobs through that POST
 * can see. Each runs adapted (the default) and --strict: the difference is the proof. The server
 * is in this thread on the runs' manual clock (issue 46), so their seconds pass as fast as
 * loopback answers.
 */
let server: PartialServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const POST_STATUS: PartialOptions = { postOnly: ['status'] };

async function both(
  options: PartialOptions,
  scenario: string,
  args: string[] = [],
): Promise<{ adapted: ForeignOutcome; strict: ForeignOutcome }> {
  const clock = cliClock();
  server = await startPartialServer({ ...options, clock });
  const common = ['--duration', '3s', '--quiet', ...args];
  const env = { JOBSTORM_API_KEY: 'foreign-test-key' };
  const adapted = await runForeign(server.base, scenario, common, env, clock);
  const strict = await runForeign(server.base, scenario, [...common, '--strict'], env, clock);
  return { adapted, strict };
}

/** The GET refused once, named once; and in the adapted run the jobs followed by POST /status. */
function expectMethodAdapted(o: ForeignOutcome): void {
  const method = o.summary.violations.find((v) => v.id === 'request.method');
  expect(method?.count).toBe(1);
  expect(method?.examples[0]?.message).toContain('Allow: POST');
  expect(method?.examples[0]?.message).toContain('sends status with POST from then on');
  const followed = exchanges(o).filter(
    (r) => r.op === 'status' && r.method === 'POST' && r.req?.adaptedFrom === 'GET' && r.status === 200,
  );
  expect(followed.length).toBeGreaterThan(3);
  // Every GET /status after the one that showed it was in flight already: none sent after it.
  const refused = method?.examples[0]?.evidence.seq ?? 0;
  const refusedAt = exchanges(o).find((r) => r.seq === refused)?.endAt ?? 0;
  const laterGets = exchanges(o).filter(
    (r) => r.op === 'status' && r.method === 'GET' && r.sentAt > refusedAt && !r.req?.probe,
  );
  expect(laterGets).toEqual([]);
}

/** Each deviation is one line of the leading section, in every report, above the per-check detail. */
function expectDeviationsLead(o: ForeignOutcome, ids: string[]): void {
  const list = deviations(o.summary);
  expect(list.map((d) => d.id).sort()).toEqual([...ids].sort());
  const seqs = new Set(exchanges(o).map((r) => r.seq));
  for (const d of list) expect(seqs.has(d.seq ?? -1), `${d.id} cites an exchanged record`).toBe(true);
  expect(o.md.indexOf(DEVIATIONS_TITLE)).toBeGreaterThan(-1);
  expect(o.md.indexOf(DEVIATIONS_TITLE)).toBeLessThan(o.md.indexOf('### Violations'));
  expect(o.html.indexOf(DEVIATIONS_TITLE)).toBeLessThan(o.html.indexOf('<h2>Violations</h2>'));
  for (const id of ids) {
    const section = o.md.slice(o.md.indexOf(DEVIATIONS_TITLE), o.md.indexOf('### Operations'));
    expect(section.split('\n').filter((l) => l.startsWith(`- ${id}`)).length, id).toBe(1);
  }
  expectRealEvidence(o);
}

describe('a target that serves /status only to POST', () => {
  it('adapted: request.method once, then every job followed to its end by POST; strict: only what /runsync answered itself', async () => {
    const { adapted, strict } = await both(POST_STATUS, 'scenarios/smoke.yaml');
    expect(adapted.fired).toEqual(['request.method']);
    expectMethodAdapted(adapted);
    expectDeviationsLead(adapted, ['request.method']);
    // The lifecycle and transition rules were judged: only through the adapted /status.
    expect(adapted.summary.coverage['lifecycle.lost']).toBeGreaterThan(0);
    expect(adapted.summary.coverage['transition.backwards']).toBeGreaterThan(0);
    expect(adapted.summary.jobs.byState.COMPLETED).toBeGreaterThan(5);
    expect(strict.fired).toEqual(['request.method']);
    expect(strict.summary.violations[0]?.examples[0]?.message).toContain('stops sending status');
    expect(exchanges(strict).some((r) => r.req?.adaptedFrom !== undefined)).toBe(false);
    expect(strict.summary.coverage['lifecycle.lost'] ?? 0).toBeLessThan(
      (adapted.summary.coverage['lifecycle.lost'] ?? 0) / 2,
    );
    expect(strict.summary.jobs.byState.COMPLETED).toBeLessThan(adapted.summary.jobs.byState.COMPLETED / 2);
    expectDeviationsLead(strict, ['request.method']);
  }, 120_000);
});

describe('… and answers an unknown job id with 200 and a FAILED body', () => {
  it('the requests probe asks by POST, so request.unknown-job is found; the strict run cannot ask', async () => {
    const { adapted, strict } = await both({ ...POST_STATUS, unknownJobFound: true }, 'scenarios/smoke.yaml');
    expect(adapted.fired).toEqual(['request.method', 'request.unknown-job']);
    expectMethodAdapted(adapted);
    const unknown = adapted.summary.violations.find((v) => v.id === 'request.unknown-job');
    expect(unknown?.examples[0]?.message).toMatch(/^POST \/status\/\S+, a job id that never existed/);
    expect(unknown?.examples[0]?.message).toContain('with status FAILED in its body');
    expectDeviationsLead(adapted, ['request.method', 'request.unknown-job']);
    expect(strict.fired).toEqual(['request.method']);
  }, 120_000);
});

describe("… and drops a finished job's result after the first read", () => {
  it('the /status after /runsync answers 404: lifecycle.lost, seen only by the adapted run', async () => {
    const { adapted, strict } = await both({ ...POST_STATUS, dropAfterRead: true }, 'scenarios/smoke.yaml');
    expect(adapted.fired).toEqual(['lifecycle.lost', 'request.method']);
    expectMethodAdapted(adapted);
    const lost = adapted.summary.violations.find((v) => v.id === 'lifecycle.lost')?.examples[0];
    const cited = exchanges(adapted).find((r) => r.seq === lost?.evidence.seq);
    expect(cited?.method).toBe('POST');
    expect(cited?.status).toBe(404);
    expect(cited?.req?.adaptedFrom).toBe('GET');
    expectDeviationsLead(adapted, ['request.method', 'lifecycle.lost']);
    expect(strict.fired).toEqual(['request.method']);
  }, 120_000);
});

describe('… and serves no /cancel', () => {
  it('route.missing for cancel once, shown by the adapted /status of the job; strict: by the early-404 rule, never silence', async () => {
    const { adapted, strict } = await both(
      { ...POST_STATUS, missing: ['cancel'], jobMs: 300 },
      'scenarios/cancel-storm.yaml',
    );
    expect(adapted.fired).toEqual(['request.method', 'route.missing']);
    expectMethodAdapted(adapted);
    const missing = adapted.summary.violations.find((v) => v.id === 'route.missing');
    expect(missing?.count).toBe(1);
    expect(missing?.examples[0]?.op).toBe('cancel');
    expect(missing?.examples[0]?.message).toContain('which status then showed to exist');
    expect(adapted.fired).not.toContain('lifecycle.lost');
    expect(adapted.summary.jobs.byState.COMPLETED).toBeGreaterThan(40);
    expectDeviationsLead(adapted, ['request.method', 'route.missing']);
    // The strict run sends no /status, yet the 404s right after acceptance are not left silent.
    expect(strict.fired).toEqual(['request.method', 'route.missing']);
    expect(strict.summary.violations.find((v) => v.id === 'route.missing')?.examples[0]?.message).toContain(
      'answered 404 for the first 3 jobs the endpoint accepted',
    );
    expect(strict.summary.jobs.byState.COMPLETED).toBe(0);
  }, 120_000);
});

describe('… and answers 404 to /cancel of a running job it still serves', () => {
  it('/cancel is served (queued jobs are cancelled): lifecycle.lost, never route.missing, with the /status that shows the job', async () => {
    const { adapted, strict } = await both(
      { ...POST_STATUS, cancelQueuedOnly: true, queueMs: 300, jobMs: 1500 },
      'scenarios/cancel-storm.yaml',
    );
    expect(adapted.fired).toEqual(['lifecycle.lost', 'request.method']);
    expectMethodAdapted(adapted);
    const lost = adapted.summary.violations.find((v) => v.id === 'lifecycle.lost');
    expect(lost?.examples[0]?.op).toBe('cancel');
    expect(lost?.examples[0]?.message).toMatch(
      /^POST cancel answered 404 for job \S+, [\d.]+ s after it was accepted, though status then still showed the job \(IN_PROGRESS\)/,
    );
    expect(adapted.summary.jobs.byState.CANCELLED).toBeGreaterThan(0);
    expectDeviationsLead(adapted, ['request.method', 'lifecycle.lost']);
    // Without /status the cancel-running flow cannot even wait for its job to run.
    expect(strict.fired).not.toContain('route.missing');
    expect(
      strict.summary.violations.find((v) => v.id === 'lifecycle.lost')?.examples[0]?.message ?? '',
    ).not.toContain('still showed');
  }, 120_000);
});

describe('the faithful emulator under the same scenarios', () => {
  for (const scenario of ['scenarios/smoke.yaml', 'scenarios/cancel-storm.yaml'])
    for (const strict of [false, true])
      it(`${scenario}${strict ? ' --strict' : ''}: no finding, and no request adapted`, async () => {
        const o = await runForeign(
          '',
          scenario,
          ['--duration', '3s', '--quiet', ...(strict ? ['--strict'] : [])],
          { JOBSTORM_API_KEY: 'foreign-test-key' },
          cliClock(),
        );
        expect(o.fired).toEqual([]);
        expect(deviations(o.summary)).toEqual([]);
        expect(o.md).not.toContain(DEVIATIONS_TITLE);
        expect(exchanges(o).some((r) => r.req?.adaptedFrom !== undefined)).toBe(false);
      }, 120_000);
});
