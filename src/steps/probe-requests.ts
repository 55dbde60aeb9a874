import { LIMITS } from '../../contracts/queue/limits.js';
import type { CallContext } from '../client/client-options.js';
import { payloadProbe } from '../client/sized-submission.js';
import { isFinalStatus } from '../core/job-status.js';
import type { RequestFacts } from '../core/record.js';
import { statusOf, WRONG_METHOD_PROBE } from '../core/route-watch.js';
import type { StepContext } from './iteration-state.js';

export type CallFor = (kind: string, req?: RequestFacts) => CallContext;

const json = (v: unknown): string => JSON.stringify(v);

/**
 * Requests at the contract's edges, each labelled with what the contract expects, so the checks
 * judge them (`limits.*`, `auth.*`). Edges come from contracts/queue/limits.ts: exactly each bound
 * must be accepted, one unit outside must be rejected.
 */
async function limitsProbe(ctx: StepContext, call: CallFor): Promise<void> {
  const { client } = ctx;
  for (const op of ['run', 'runsync'] as const) {
    for (const side of ['inside', 'outside'] as const) {
      const p = payloadProbe(op, side);
      // A runsync probe need not wait for its job: the shortest wait keeps the probe quick.
      const path = op === 'run' ? '/run' : `/runsync?wait=${String(LIMITS.wait.min)}`;
      await client.send(
        { op, method: 'POST', path, body: p.body, headers: { 'content-type': 'application/json' } },
        call(`probe:${p.facts.probe ?? ''}`, { ...p.facts }),
      );
    }
  }
  const wait = LIMITS.wait;
  for (const [value, expect] of [
    [wait.min, 'accept'],
    [wait.max, 'accept'],
    [wait.min - 1, 'reject'],
    [wait.max + 1, 'reject'],
  ] as const) {
    const probe = `wait.${expect === 'accept' ? 'inside' : 'outside'}.${String(value)}`;
    // A wait of 300 s must not hold the probe for 300 s: the job finishes at once, so runsync answers at once.
    await client.send(
      {
        op: 'runsync',
        method: 'POST',
        path: `/runsync?wait=${String(value)}`,
        body: json({ input: {} }),
        headers: { 'content-type': 'application/json' },
      },
      call(`probe:${probe}`, { probe, expect, wait: value }),
    );
  }
  for (const field of ['ttl', 'executionTimeout'] as const) {
    const range = LIMITS[field];
    for (const [value, expect] of [
      [range.min, 'accept'],
      [range.max, 'accept'],
      [range.min - 1, 'reject'],
      [range.max + 1, 'reject'],
    ] as const) {
      const probe = `${field}.${expect === 'accept' ? 'inside' : 'outside'}.${String(value)}`;
      await client.send(
        {
          op: 'run',
          method: 'POST',
          path: '/run',
          body: json({ input: {}, policy: { [field]: value } }),
          headers: { 'content-type': 'application/json' },
        },
        call(`probe:${probe}`, { probe, expect, [field]: value }),
      );
    }
  }
}

/** Missing and wrong keys must get 401; a good key must work in both header forms. */
async function authProbe(ctx: StepContext, call: CallFor): Promise<void> {
  // Without a key (`auth: none`) only the missing and wrong forms can be tried.
  const forms = ctx.keyless
    ? (['missing', 'wrong'] as const)
    : (['missing', 'wrong', 'bearer', 'bare'] as const);
  for (const auth of forms) {
    await ctx.client.send(
      { op: 'health', method: 'GET', path: '/health', auth },
      call(`probe:auth.${auth}`, { probe: `auth.${auth}`, auth }),
    );
    await ctx.client.send(
      {
        op: 'run',
        method: 'POST',
        path: '/run',
        auth,
        body: json({ input: { probe: `auth.${auth}` } }),
        headers: { 'content-type': 'application/json' },
      },
      call(`probe:auth.${auth}`, { probe: `auth.${auth}`, auth }),
    );
  }
}

/**
 * The management calls, without side effects on a real account: StartPod of a pod that cannot
 * exist and CreateEndpoint without its required templateId must both be refused with 400.
 */
async function managementProbe(ctx: StepContext, call: CallFor): Promise<void> {
  await ctx.client.send(
    { op: 'StartPod', method: 'POST', path: '/pods/jobstorm-probe-no-such-pod/start', management: true },
    call('probe:management.start-pod', { probe: 'management.start-pod' }),
  );
  await ctx.client.send(
    {
      op: 'CreateEndpoint',
      method: 'POST',
      path: '/endpoints',
      management: true,
      body: json({ name: 'jobstorm-probe' }),
      headers: { 'content-type': 'application/json' },
    },
    call('probe:management.create-endpoint', { probe: 'management.create-endpoint' }),
  );
}

/** A job id no service can have issued. */
const NEVER_ISSUED = 'jobstorm-probe-never-issued';

/**
 * What partial and local servers most often get wrong (issue "Real targets, first try"), a few
 * requests labelled `request.*` for the probe check:
 * - `/status` of a job id that never existed must be 404 (not 200 with a FAILED body);
 * - a /run or /runsync body without `input` must be 400;
 * - `/status` and `/stream` of a job that exists must answer GET. Where GET is refused with 404
 *   or 405, the same path is tried with POST: its answer tells "served with another method" from
 *   "not served at all" (the latter is `route.missing`'s, not this probe's).
 */
async function requestsProbe(ctx: StepContext, call: CallFor): Promise<void> {
  const { client } = ctx;
  // A job that exists first, for the method probes: a plain submission, checked like any other. Its
  // answer also shows /run is served, so a later refusal of a body without input is about the body.
  const job = await client.send(
    {
      op: 'run',
      method: 'POST',
      path: '/run',
      body: json({ input: { probe: 'request.method' } }),
      headers: { 'content-type': 'application/json' },
    },
    call('probe:request.job', { probe: 'request.job' }),
  );
  const post = (op: 'run' | 'runsync', path: string, body: string) =>
    client.send(
      { op, method: 'POST', path, body, headers: { 'content-type': 'application/json' } },
      call('probe:request.missing-input', { probe: 'request.missing-input', expect: 'reject' }),
    );
  // No jobId on the record: it names no job of this run, and the lifecycle checks must not track it.
  // An operation found missing is not asked again; one served to another method is asked that way.
  if (!ctx.routes.isMissing('status')) {
    const instead = ctx.routes.methodFor('status');
    await client.send(
      { op: 'status', method: instead ?? 'GET', path: `/status/${NEVER_ISSUED}` },
      call('probe:request.unknown-job', {
        probe: 'request.unknown-job',
        expect: 'reject',
        adaptedFrom: instead === undefined ? undefined : 'GET',
      }),
    );
  }
  // Should a server take it anyway, the policy keeps the job it made short-lived.
  await post('run', '/run', json({ policy: { ttl: LIMITS.ttl.min } }));
  await post('runsync', `/runsync?wait=${String(LIMITS.wait.min)}`, json({}));
  const id = (job.body as { id?: unknown } | null | undefined)?.id;
  if (typeof id !== 'string' || id === '') return;
  let final = false;
  for (const op of ['status', 'stream'] as const) {
    // Missing, or already known to be served to another method: nothing left to learn.
    if (ctx.routes.isMissing(op) || ctx.routes.methodFor(op) !== undefined) continue;
    const path = `/${op}/${encodeURIComponent(id)}`;
    const got = await client.send(
      { op, method: 'GET', path, jobId: id },
      call(`probe:request.method`, { probe: 'request.method' }),
    );
    if (got.status === 404 || got.status === 405)
      await client.send(
        { op, method: 'POST', path, jobId: id },
        call(`probe:${WRONG_METHOD_PROBE}`, { probe: WRONG_METHOD_PROBE }),
      );
    else if (got.status === 200) final ||= isFinalStatus(statusOf(got.body));
  }
  if (!final) await followToFinal(ctx, call, id);
}

/** How long the requests probe follows its job, and how often it asks. */
const FOLLOW_MS = 10_000;
const FOLLOW_INTERVAL_MS = 100;

/**
 * Polls the probe's job until it is final, as a flow would: a job left running when the probe
 * ends would be reported unfinished, and its end never checked (a slow cold start, a real
 * worker under load). Ordinary /status requests, judged like any other; the run's stop ends it.
 */
async function followToFinal(ctx: StepContext, call: CallFor, id: string): Promise<void> {
  const { client, clock } = ctx;
  const until = clock.now() + FOLLOW_MS;
  while (clock.now() < until && !ctx.routes.isMissing('status')) {
    try {
      await clock.sleep(FOLLOW_INTERVAL_MS, ctx.stop);
    } catch {
      return;
    }
    // Each poll is due when it is sent (the probe step's `call` makes it so): the wait is not latency.
    const r = await client.status(id, {}, call('probe:request.job-status'));
    if (r.status === 200 && isFinalStatus(r.jobStatus)) return;
    if (r.status !== undefined && r.status >= 400 && r.status !== 429) return;
  }
}

export const PROBE_NAMES = ['limits', 'auth', 'management', 'requests'] as const;

export type ProbeName = (typeof PROBE_NAMES)[number];

/** Each probe by name. */
export const PROBES: Readonly<Record<ProbeName, (ctx: StepContext, call: CallFor) => Promise<void>>> = {
  limits: limitsProbe,
  auth: authProbe,
  management: managementProbe,
  requests: requestsProbe,
};
