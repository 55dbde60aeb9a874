import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts/queue/limits.js';
import { OpenAiErrorSchema } from '../../contracts/queue/openai-schemas.js';
import { ErrorBodySchema } from '../../contracts/queue/schemas.js';
import type { ManualClock } from '../../src/core/manual-clock.js';
import { FAULT_NAMES, FAULTS, type EmulatorHandle, type FaultName } from '../../src/emulator/index.js';
import {
  call,
  manualEmulator,
  openAiEvents,
  until,
  valid,
  webhookReceiver,
  webhooksPending,
} from './helpers.js';

/*
 * Each fault must change exactly the behaviour it names. A fingerprint runs one probe per rule,
 * each on an endpoint of its own; a fault's fingerprint must differ from the faithful one in
 * exactly the probes listed for it. So that a fault changes no probe but its own, a probe records
 * only what its rule is about: status codes of 2xx answers are '2xx' unless the probe is about
 * status codes, numbers are read with Number() unless it is about types, and a rule about
 * deliveries (webhooks, 429s) is checked over the deliveries that came, so it holds vacuously when
 * none came (that is the one probe of no-webhook, and of no-429).
 */

interface Ctx {
  h: EmulatorHandle;
  clock: ManualClock;
  base: (probe: string) => string;
}

type Body = Record<string, unknown>;

async function run(
  c: Ctx,
  probe: string,
  input: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const r = await call(c.h, 'POST', `${c.base(probe)}/run`, { body: { input, ...extra } });
  if (r.status < 200 || r.status > 299)
    throw new Error(`probe ${probe}: /run answered ${String(r.status)} ${r.text}`);
  return (r.body as { id: string }).id;
}

async function statusOf(c: Ctx, probe: string, id: string): Promise<{ code: number; body: Body }> {
  const r = await call(c.h, 'GET', `${c.base(probe)}/status/${id}`);
  return { code: r.status, body: r.body as Body };
}

/** A status code as probes that are not about status codes record it. */
function code(status: number): number | '2xx' {
  return status >= 200 && status <= 299 ? '2xx' : status;
}

async function get(
  c: Ctx,
  probe: string,
  path: string,
  opts: Parameters<typeof call>[3] = {},
): Promise<Body> {
  return (await call(c.h, 'GET', `${c.base(probe)}/${path}`, opts)).body as Body;
}

async function post(c: Ctx, url: string, body?: unknown): Promise<Body> {
  return (await call(c.h, 'POST', url, body === undefined ? {} : { body })).body as Body;
}

/** Chunks in each of `n` successive /stream answers. */
async function streamCounts(c: Ctx, probe: string, id: string, n: number): Promise<number[]> {
  const counts: number[] = [];
  // -1: the answer had no stream (stream-post-only refuses the GET).
  for (let i = 0; i < n; i++)
    counts.push(((await get(c, probe, `stream/${id}`)).stream as unknown[] | undefined)?.length ?? -1);
  return counts;
}

async function adminEndpoint(
  c: Ctx,
  probe: string,
): Promise<{ jobsRetained: number; rateLimits: Record<string, { inFlight: number }> }> {
  return (await call(c.h, 'GET', `${c.h.adminUrl}/endpoints/${probe}`)).body as {
    jobsRetained: number;
    rateLimits: Record<string, { inFlight: number }>;
  };
}

async function webhooksSettled(c: Ctx): Promise<void> {
  await until(async () => (await webhooksPending(c.h)) === 0, 'webhook answers');
}

/**
 * Submits one job per input with a webhook to a receiver answering `answer`, then moves the clock
 * by 0 and each of `steps`, letting every attempt be answered in between. Returns the job ids and
 * the receiver's hits.
 */
async function webhookProbe(
  c: Ctx,
  probe: string,
  answer: number,
  inputs: Record<string, unknown>[],
  steps: number[],
): Promise<{ ids: string[]; hits: { at: number; body: Body }[] }> {
  const receiver = await webhookReceiver(() => c.clock.now(), answer);
  try {
    const ids: string[] = [];
    for (const input of inputs) ids.push(await run(c, probe, input, { webhook: receiver.url }));
    for (const ms of [0, ...steps]) {
      c.clock.advance(ms);
      await webhooksSettled(c);
    }
    return { ids, hits: receiver.hits.map((hit) => ({ at: hit.at, body: hit.body as Body })) };
  } finally {
    await receiver.close();
  }
}

/** A new endpoint of the probe's own scaling settings (POST /v1/endpoints); returns its base URL. */
async function scalingEndpoint(c: Ctx, settings: Record<string, number>): Promise<string> {
  const made = await call(c.h, 'POST', `${c.h.managementUrl}/endpoints`, {
    body: { templateId: 'probe-template', ...settings },
  });
  const origin = c.h.url.replace(/\/v2\/.*$/, '');
  return `${origin}/v2/${(made.body as { id: string }).id}`;
}

/** Workers /health counts on the endpoint at `base`, in every state. */
async function workersAt(c: Ctx, base: string): Promise<number> {
  const w = (await call(c.h, 'GET', `${base}/health`)).body as { workers: Record<string, number> };
  return (w.workers.idle ?? 0) + (w.workers.running ?? 0) + (w.workers.initializing ?? 0);
}

/** Submits `n` jobs of `sleepMs` to the endpoint at `base`. */
async function submitMany(
  c: Ctx,
  base: string,
  n: number,
  sleepMs: number,
  lowPriority = false,
): Promise<void> {
  for (let i = 0; i < n; i++)
    await call(c.h, 'POST', `${base}/run`, {
      body: { input: { sleep_ms: sleepMs }, ...(lowPriority ? { policy: { lowPriority: true } } : {}) },
    });
}

const PROBES: Record<string, (c: Ctx) => Promise<unknown>> = {
  rate: async (c) => {
    for (let i = 0; i < 150; i++) {
      const r = await call(c.h, 'POST', `${c.base('rate')}/cancel/none`);
      if (r.status === 429) return i;
    }
    return 'never';
  },
  cancel: async (c) => {
    const id = await run(c, 'cancel', { sleep_ms: 1000 });
    await call(c.h, 'POST', `${c.base('cancel')}/cancel/${id}`);
    c.clock.advance(2000);
    return (await statusOf(c, 'cancel', id)).body.status;
  },
  retry: async (c) => {
    const id = await run(c, 'retry', { sleep_ms: 0 });
    c.clock.advance(0);
    return (await call(c.h, 'POST', `${c.base('retry')}/retry/${id}`)).status;
  },
  purge: async (c) => {
    const running = await run(c, 'purge', { sleep_ms: 1000 });
    const queued = await run(c, 'purge', { sleep_ms: 1000 });
    await call(c.h, 'POST', `${c.base('purge')}/purge-queue`);
    return [
      (await statusOf(c, 'purge', running)).body.status,
      (await statusOf(c, 'purge', queued)).body.status,
    ];
  },
  lose: async (c) => {
    const id = await run(c, 'lose', { sleep_ms: 0 });
    c.clock.advance(10_000);
    return code((await statusOf(c, 'lose', id)).code);
  },
  ttl: async (c) => {
    const id = await run(c, 'ttl', { sleep_ms: 60_000 }, { policy: { ttl: 10_000 } });
    c.clock.advance(10_000);
    return (await statusOf(c, 'ttl', id)).code;
  },
  timeout: async (c) => {
    const id = await run(c, 'timeout', { sleep_ms: 10_000 }, { policy: { executionTimeout: 5000 } });
    c.clock.advance(5000);
    return (await statusOf(c, 'timeout', id)).body.status;
  },
  types: async (c) => {
    const id = await run(c, 'types', { sleep_ms: 3 });
    c.clock.advance(3);
    const b = (await statusOf(c, 'types', id)).body;
    return [typeof b.delayTime, typeof b.executionTime];
  },
  backwards: async (c) => {
    const id = await run(c, 'backwards', { sleep_ms: 0 });
    c.clock.advance(0);
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) seen.push((await statusOf(c, 'backwards', id)).body.status);
    return seen;
  },
  /** Every webhook answered non-200 was attempted 1 + webhookRetries times. */
  webhook: async (c) => {
    const { hits } = await webhookProbe(
      c,
      'webhook',
      500,
      [{ sleep_ms: 0 }],
      Array<number>(4).fill(LIMITS.webhookRetrySpacing),
    );
    return hits.length === 0 || hits.length === 1 + LIMITS.webhookRetries;
  },
  oversize: async (c) => {
    const raw = `{"input":{"blob":"${'x'.repeat(11_000_000)}"}}`;
    return (await call(c.h, 'POST', `${c.base('oversize')}/run`, { raw })).status;
  },
  auth: async (c) => [
    (await call(c.h, 'GET', `${c.base('auth')}/health`, { auth: 'wrong' })).status,
    (await call(c.h, 'GET', `${c.base('auth')}/health`, { auth: null })).status,
    (await call(c.h, 'POST', `${c.h.managementUrl}/pods/jobstorm-pod/start`, { auth: null })).status,
  ],
  health: async (c) => {
    await run(c, 'health', { sleep_ms: 0 });
    c.clock.advance(0);
    const jobs = (await get(c, 'health', 'health')).jobs as Body;
    return {
      completed: Number(jobs.completed),
      failed: jobs.failed,
      inProgress: jobs.inProgress,
      retried: jobs.retried,
    };
  },
  chunk: async (c) => {
    const id = await run(c, 'chunk', { stream: 1, chunk_bytes: 1_500_000, sleep_ms: 0 });
    c.clock.advance(0);
    const stream = (await get(c, 'chunk', `stream/${id}`)).stream as unknown[] | undefined;
    return stream?.every((ch) => Buffer.byteLength(JSON.stringify(ch)) <= LIMITS.streamChunk.surelyAccepted);
  },
  server: async (c) => {
    let fives = 0;
    for (let i = 0; i < 40; i++)
      if ((await call(c.h, 'GET', `${c.base('server')}/health`)).status >= 500) fives++;
    return fives;
  },
  /** Status codes of answers that must be 200, across the /v2 operations and the /v1 calls. */
  'odd-status': async (c) => {
    const b = c.base('odd-status');
    const codes: number[] = [];
    const submitted = await call(c.h, 'POST', `${b}/run`, { body: { input: { sleep_ms: 0, fail: 'boom' } } });
    codes.push(submitted.status);
    const id = (submitted.body as { id: string }).id;
    c.clock.advance(0);
    codes.push((await call(c.h, 'GET', `${b}/status/${id}`)).status);
    codes.push((await call(c.h, 'GET', `${b}/stream/${id}`)).status);
    codes.push((await call(c.h, 'POST', `${b}/cancel/${id}`)).status);
    codes.push((await call(c.h, 'POST', `${b}/retry/${id}`)).status);
    codes.push((await call(c.h, 'POST', `${b}/purge-queue`)).status);
    codes.push((await call(c.h, 'GET', `${b}/health`)).status);
    codes.push((await call(c.h, 'POST', `${c.h.managementUrl}/pods/jobstorm-pod/start`)).status);
    codes.push(
      (await call(c.h, 'POST', `${c.h.managementUrl}/endpoints`, { body: { templateId: 'tpl' } })).status,
    );
    return codes;
  },
  /** Types of the fields wrong-types leaves alone. */
  malformed: async (c) => {
    const b = c.base('malformed');
    const submitted = await post(c, `${b}/run`, { input: { sleep_ms: 0, fail: 'boom' } });
    const id = submitted.id as string;
    c.clock.advance(0);
    const stream = await get(c, 'malformed', `stream/${id}`);
    const cancel = await post(c, `${b}/cancel/${id}`);
    const retry = await post(c, `${b}/retry/${id}`);
    const purge = await post(c, `${b}/purge-queue`);
    const health = (await get(c, 'malformed', 'health')).jobs as Body;
    const pod = await post(c, `${c.h.managementUrl}/pods/no-such-pod/start`);
    const refused = await post(c, `${c.h.managementUrl}/endpoints`, {});
    const created = await post(c, `${c.h.managementUrl}/endpoints`, { templateId: 'tpl', workersMax: 1 });
    const fields = [
      submitted.status,
      stream.status,
      cancel.status,
      retry.status,
      purge.removed,
      health.completed,
      pod.message,
      refused.message,
      created.workersMax,
    ];
    return fields.map((v) => typeof v);
  },
  'backwards-queue': async (c) => {
    const id = await run(c, 'backwards-queue', { sleep_ms: 1000 });
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) seen.push((await statusOf(c, 'backwards-queue', id)).body.status);
    c.clock.advance(1000);
    return seen;
  },
  spurious: async (c) => {
    const first = await run(c, 'spurious', { sleep_ms: 0 });
    const second = await run(c, 'spurious', { sleep_ms: 0 });
    c.clock.advance(0);
    return [
      (await statusOf(c, 'spurious', first)).body.status,
      (await statusOf(c, 'spurious', second)).body.status,
    ];
  },
  retention: async (c) => {
    const id = await run(c, 'retention', { sleep_ms: 0 });
    c.clock.advance(0);
    c.clock.advance(LIMITS.retentionRun + 1000);
    return code((await statusOf(c, 'retention', id)).code);
  },
  'timeout-early': async (c) => {
    const id = await run(c, 'timeout-early', { sleep_ms: 10_000 }, { policy: { executionTimeout: 6000 } });
    c.clock.advance(3000);
    return (await statusOf(c, 'timeout-early', id)).body.status;
  },
  /** When (ms after submission) a /runsync?wait=1000 of a job that ends at once answers, and with what. */
  overwait: async (c) => {
    const answer = call(c.h, 'POST', `${c.base('overwait')}/runsync?wait=1000`, {
      body: { input: { sleep_ms: 0 } },
    });
    await until(async () => (await adminEndpoint(c, 'overwait')).jobsRetained === 1, 'the runsync job');
    let answeredAt: number | 'never' = 'never';
    let at = 0;
    for (const step of [0, 1000, 1000]) {
      c.clock.advance(step);
      at += step;
      if ((await adminEndpoint(c, 'overwait')).rateLimits.runsync?.inFlight === 0) {
        answeredAt = at;
        break;
      }
    }
    return [answeredAt, ((await answer).body as Body).status];
  },
  miscount: async (c) => Number((await post(c, `${c.base('miscount')}/purge-queue`)).removed),
  timing: async (c) => {
    const id = await run(c, 'timing', { sleep_ms: 5 });
    c.clock.advance(5);
    const b = (await statusOf(c, 'timing', id)).body;
    return [Number(b.delayTime), Number(b.executionTime)];
  },
  params: async (c) => {
    const b = c.base('params');
    const ttl = await call(c.h, 'POST', `${b}/run`, {
      body: { input: { sleep_ms: 0 }, policy: { ttl: LIMITS.ttl.min - 1 } },
    });
    const timeout = await call(c.h, 'POST', `${b}/run`, {
      body: { input: { sleep_ms: 0 }, policy: { executionTimeout: LIMITS.executionTimeout.min - 1 } },
    });
    const id = await run(c, 'params', { sleep_ms: 0 });
    c.clock.advance(0);
    const wait = await call(c.h, 'GET', `${b}/status-sync/${id}?wait=${String(LIMITS.wait.max + 1)}`);
    return [ttl.status, timeout.status, wait.status].map(code);
  },
  /** Every 429 carries Retry-After. */
  'retry-after': async (c) => {
    for (let i = 0; i < 150; i++) {
      const r = await call(c.h, 'POST', `${c.base('retry-after')}/cancel/none`);
      if (r.status === 429) return r.headers['retry-after'] !== undefined;
    }
    return true;
  },
  'bare-key': async (c) => [
    code((await call(c.h, 'GET', `${c.base('bare-key')}/health`, { auth: c.h.apiKey })).status),
    code((await call(c.h, 'GET', `${c.base('bare-key')}/health`)).status),
  ],
  /** A job that asked for a webhook got at least one delivery. */
  'hook-missing': async (c) =>
    (await webhookProbe(c, 'hook-missing', 200, [{ sleep_ms: 0 }], [])).hits.length > 0,
  /** Every webhook body's status is the job's final status. */
  'hook-status': async (c) => {
    const { ids, hits } = await webhookProbe(
      c,
      'hook-status',
      200,
      [{ sleep_ms: 0 }, { sleep_ms: 0, fail: 'boom' }],
      [],
    );
    const final = new Map<unknown, unknown>();
    for (const id of ids) final.set(id, (await statusOf(c, 'hook-status', id)).body.status);
    return hits.every((hit) => hit.body.status === final.get(hit.body.id));
  },
  /** Every webhook retry came at least webhookRetrySpacing after the attempt before. */
  'hook-spacing': async (c) => {
    const { hits } = await webhookProbe(
      c,
      'hook-spacing',
      500,
      [{ sleep_ms: 0 }],
      Array<number>(25).fill(1000),
    );
    return hits.every((hit, i) => i === 0 || hit.at - (hits[i - 1]?.at ?? 0) >= LIMITS.webhookRetrySpacing);
  },
  /** No webhook came again after the receiver answered 200. */
  'hook-duplicate': async (c) =>
    (await webhookProbe(c, 'hook-duplicate', 200, [{ sleep_ms: 0 }], [1000, 1000])).hits.length <= 1,
  /** Chunks in the first and the third /stream answer of a finished job. */
  'stream-final': async (c) => {
    const id = await run(c, 'stream-final', { stream: 2, sleep_ms: 0 });
    c.clock.advance(0);
    const counts = await streamCounts(c, 'stream-final', id, 3);
    return [counts[0], counts[2]];
  },
  'stream-duplicate': async (c) => {
    const id = await run(c, 'stream-duplicate', { stream: 2, sleep_ms: 1000 });
    c.clock.advance(500);
    const counts = await streamCounts(c, 'stream-duplicate', id, 2);
    c.clock.advance(500);
    return counts;
  },
  'health-negative': async (c) => ((await get(c, 'health-negative', 'health')).jobs as Body).inQueue,
  /** /status of an id no emulator issued, and of one in the shape of its ids. */
  'unknown-job': async (c) => [
    (await call(c.h, 'GET', `${c.base('unknown-job')}/status/jobstorm-never-issued`)).status,
    (await call(c.h, 'GET', `${c.base('unknown-job')}/status/00000000-0000-4000-8000-000000000000-u1`))
      .status,
  ],
  /** Bodies without input, to /run and /runsync. */
  'no-input': async (c) => [
    (await call(c.h, 'POST', `${c.base('no-input')}/run`, { body: { policy: { ttl: 10_000 } } })).status,
    (await call(c.h, 'POST', `${c.base('no-input')}/run`, { body: {} })).status,
  ],
  /** GET and POST of /status and /stream of a job that exists. */
  methods: async (c) => {
    const id = await run(c, 'methods', { sleep_ms: 0 });
    c.clock.advance(0);
    const b = c.base('methods');
    return [
      (await call(c.h, 'GET', `${b}/status/${id}`)).status,
      (await call(c.h, 'GET', `${b}/stream/${id}`)).status,
      (await call(c.h, 'POST', `${b}/status/${id}`)).status,
      (await call(c.h, 'POST', `${b}/stream/${id}`)).status,
    ];
  },
  /** The status of a 1 s job once 1 s has passed, and the executionTime it then reports. */
  slow: async (c) => {
    const id = await run(c, 'slow', { sleep_ms: 1000 });
    c.clock.advance(0);
    c.clock.advance(1000);
    const first = (await statusOf(c, 'slow', id)).body.status;
    c.clock.advance(1000);
    return [first, Number((await statusOf(c, 'slow', id)).body.executionTime)];
  },
  /** Changes of jobs.completed between three successive /health reads. */
  'health-decrease': async (c) => {
    await run(c, 'health-decrease', { sleep_ms: 0 });
    c.clock.advance(0);
    const seen: number[] = [];
    for (let i = 0; i < 3; i++)
      seen.push(Number(((await get(c, 'health-decrease', 'health')).jobs as Body).completed));
    return seen.slice(1).map((n, i) => n - (seen[i] ?? 0));
  },
  /** The framing of a streamed chat completion: ends with [DONE], events that are not JSON, events after [DONE]. */
  'openai-stream': async (c) => {
    const events = await openAiEvents(c.h, c.clock, `${c.base('openai-stream')}/openai/v1/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      max_tokens: 3,
    });
    const done = events.indexOf('[DONE]');
    const bad = events.filter((e) => {
      if (e === '[DONE]') return false;
      try {
        JSON.parse(e);
        return false;
      } catch {
        return true;
      }
    }).length;
    return { last: events.at(-1) === '[DONE]', bad, after: done < 0 ? -1 : events.length - done - 1 };
  },
  /** Whether /openai/* 400, 401 and 404 answers carry the OpenAI error object. */
  'openai-error': async (c) => {
    const url = `${c.base('openai-error')}/openai/v1/chat/completions`;
    const replies = [
      await call(c.h, 'POST', url, { body: { model: 'm' } }),
      await call(c.h, 'POST', url, { body: { model: 'm', messages: [] }, auth: 'wrong' }),
      await call(c.h, 'POST', `${c.base('openai-error')}/openai/v1/embeddings`, { body: { model: 'm' } }),
    ];
    return replies.map((r) => OpenAiErrorSchema.safeParse(r.body).success);
  },
  /**
   * 429s among 210 concurrent chat completions: none under the table's 400 at once, some under a
   * halved table (410 would probe the cap itself, at twice the cost in every fingerprint; the cap
   * is proven in openai.test.ts).
   */
  'openai-rate': async (c) => {
    let refused = 0;
    const url = `${c.base('openai-rate')}/openai/v1/chat/completions`;
    const all = Array.from({ length: 210 }, () =>
      call(c.h, 'POST', url, {
        body: { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 },
      }).then((r) => {
        if (r.status === 429) refused++;
        return r;
      }),
    );
    await until(
      async () => refused + (await adminEndpoint(c, 'openai-rate')).jobsRetained >= 210,
      'openai admissions',
      20_000,
    );
    c.clock.advance(60_000);
    await Promise.all(all);
    return refused;
  },
  /** GET /requests accepted among 14 in a row (the table: 10 per 10 s). */
  'requests-rate': async (c) => {
    let accepted = 0;
    for (let i = 0; i < 14; i++)
      if ((await call(c.h, 'GET', `${c.base('requests-rate')}/requests`)).status !== 429) accepted++;
    return accepted;
  },
  /** Workers after three lowPriority jobs queue behind one warm worker (they call for none). */
  'scale-low': async (c) => {
    const base = await scalingEndpoint(c, { workersMin: 1, workersMax: 4, idleTimeout: 60 });
    await submitMany(c, base, 3, 60_000, true);
    return workersAt(c, base);
  },
  /** Whether more workers than workersMax (2) start for six jobs. */
  'scale-max': async (c) => {
    const base = await scalingEndpoint(c, { workersMin: 0, workersMax: 2, idleTimeout: 60 });
    await submitMany(c, base, 6, 60_000);
    return (await workersAt(c, base)) > 2;
  },
  /** Workers for four jobs on an endpoint of workersMax 4. */
  'scale-stuck': async (c) => {
    const base = await scalingEndpoint(c, { workersMin: 0, workersMax: 4, idleTimeout: 60 });
    await submitMany(c, base, 4, 60_000);
    return workersAt(c, base);
  },
  /** Workers left 2 s after the one job of an endpoint of idleTimeout 1 s ended. */
  'scale-down': async (c) => {
    const base = await scalingEndpoint(c, { workersMin: 0, workersMax: 2, idleTimeout: 1 });
    await submitMany(c, base, 1, 10);
    c.clock.advance(0);
    c.clock.advance(10);
    c.clock.advance(2000);
    return workersAt(c, base);
  },
};

/** Which probes each fault must change (and no others). */
const CHANGES: Record<Exclude<FaultName, 'server-errors'>, string[]> = {
  'early-429': ['rate', 'requests-rate'],
  'no-429': ['rate', 'requests-rate'],
  'cancel-ignored': ['cancel'],
  'retry-any': ['retry'],
  'purge-running': ['purge'],
  'lose-jobs': ['lose'],
  'ttl-ignored': ['ttl'],
  'timeout-ignored': ['timeout'],
  'wrong-types': ['types'],
  'backwards-status': ['backwards'],
  'no-webhook-retry': ['webhook'],
  'oversize-accepted': ['oversize'],
  'auth-open': ['auth'],
  'health-drift': ['health'],
  'chunk-too-large': ['chunk'],
  'odd-status': ['odd-status', 'methods'],
  'malformed-bodies': ['malformed'],
  'backwards-queue': ['backwards-queue'],
  'spurious-cancel': ['spurious'],
  'retention-ignored': ['retention'],
  'timeout-early': ['timeout-early'],
  'runsync-overwait': ['overwait'],
  'purge-miscount': ['miscount'],
  'timing-inflated': ['timing'],
  'params-unchecked': ['params'],
  'bad-retry-after': ['retry-after'],
  'bare-key-rejected': ['bare-key'],
  'no-webhook': ['hook-missing'],
  'webhook-wrong-status': ['hook-status'],
  'webhook-fast-retry': ['hook-spacing'],
  'webhook-duplicate': ['hook-duplicate'],
  'stream-after-final': ['stream-final'],
  'stream-duplicate': ['stream-duplicate'],
  'health-negative': ['health-negative'],
  'health-decrease': ['health-decrease'],
  // Every probe that calls /cancel or /retry sees the 404.
  'missing-routes': ['rate', 'cancel', 'retry', 'odd-status', 'malformed'],
  // Every probe that reads a /stream by GET sees the 405.
  'stream-post-only': ['chunk', 'odd-status', 'malformed', 'stream-final', 'stream-duplicate', 'methods'],
  // Ids of the emulator's own shape keep their 404: lose, ttl and retention are untouched.
  'unknown-job-found': ['unknown-job'],
  'input-optional': ['no-input'],
  // Longer jobs: every probe that reads a job's duration or waits on it sees them.
  'slow-execution': ['types', 'timing', 'stream-duplicate', 'slow'],
  'openai-no-done': ['openai-stream'],
  'openai-bad-event': ['openai-stream'],
  'openai-after-done': ['openai-stream'],
  'openai-error-shape': ['openai-error'],
  'openai-limit-low': ['openai-rate'],
  'requests-limit-low': ['requests-rate'],
  'requests-limit-high': ['requests-rate'],
  'low-priority-scales': ['scale-low'],
  'scale-over-max': ['scale-max'],
  'scale-stuck': ['scale-stuck'],
  'no-scale-down': ['scale-down'],
};

async function fingerprint(faults: string[]): Promise<Record<string, unknown>> {
  const probes = Object.keys(PROBES);
  const { h, clock } = await manualEmulator({ endpoints: probes, workersMax: 1, faults });
  const origin = h.url.replace(/\/v2\/.*$/, '');
  const c: Ctx = { h, clock, base: (p) => `${origin}/v2/${p}` };
  try {
    const out: Record<string, unknown> = {};
    for (const p of probes) out[p] = await (PROBES[p] as (c: Ctx) => Promise<unknown>)(c);
    return out;
  } finally {
    await h.close();
  }
}

function differing(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

let faithful: Record<string, unknown>;
beforeAll(async () => {
  faithful = await fingerprint([]);
}, 30_000);

describe('fault registry', () => {
  it('has one switch per rule named in the issue, each with a one-line description', () => {
    expect([...FAULT_NAMES].sort()).toEqual([...Object.keys(CHANGES), 'server-errors'].sort());
    for (const name of FAULT_NAMES) {
      expect(FAULTS[name].length).toBeGreaterThan(20);
      expect(FAULTS[name]).not.toMatch(/\n/);
    }
  });

  it('the faithful emulator keeps every rule', () => {
    expect(faithful).toEqual({
      rate: RATE_CANCEL,
      cancel: 'CANCELLED',
      retry: 400,
      purge: ['IN_PROGRESS', 'CANCELLED'],
      lose: '2xx',
      ttl: 404,
      timeout: 'TIMED_OUT',
      types: ['number', 'number'],
      backwards: ['COMPLETED', 'COMPLETED', 'COMPLETED'],
      webhook: true,
      oversize: 413,
      auth: [401, 401, 401],
      health: { completed: 1, failed: 0, inProgress: 0, retried: 0 },
      chunk: true,
      server: 0,
      'odd-status': Array<number>(9).fill(200),
      malformed: ['string', 'string', 'string', 'string', 'number', 'number', 'string', 'string', 'number'],
      'backwards-queue': ['IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS'],
      spurious: ['COMPLETED', 'COMPLETED'],
      retention: 404,
      'timeout-early': 'IN_PROGRESS',
      overwait: [0, 'COMPLETED'],
      miscount: 0,
      timing: [0, 5],
      params: [400, 400, 400],
      'retry-after': true,
      'bare-key': ['2xx', '2xx'],
      'hook-missing': true,
      'hook-status': true,
      'hook-spacing': true,
      'hook-duplicate': true,
      'stream-final': [2, 0],
      'stream-duplicate': [1, 0],
      'health-negative': 0,
      'unknown-job': [404, 404],
      'no-input': [400, 400],
      methods: [200, 200, 404, 404],
      'health-decrease': [0, 0],
      slow: ['COMPLETED', 1000],
      'openai-stream': { last: true, bad: 0, after: 0 },
      'openai-error': [true, true, true],
      'openai-rate': 0,
      'requests-rate': 10,
      'scale-low': 1,
      'scale-max': false,
      'scale-stuck': 4,
      'scale-down': 0,
    });
  });
});

const RATE_CANCEL = 100;

describe('each fault changes exactly the behaviour it names', () => {
  for (const [fault, probes] of Object.entries(CHANGES)) {
    it(`${fault}: ${FAULTS[fault as FaultName]}`, async () => {
      const broken = await fingerprint([fault]);
      expect(differing(faithful, broken)).toEqual(probes);
    });
  }

  it('server-errors: about the given fraction of API requests answer 500 (JSON), with no side effect; admin is spared', async () => {
    const { h } = await manualEmulator({ faults: ['server-errors=0.3'] });
    try {
      let fives = 0;
      let accepted = 0;
      for (let i = 0; i < 400; i++) {
        const r = await call(h, 'POST', `${h.url}/run`, { body: { input: {} } });
        if (r.status === 500) {
          fives++;
          valid(ErrorBodySchema, r.body);
        } else if (r.status === 200) accepted++;
      }
      expect(fives).toBeGreaterThan(80);
      expect(fives).toBeLessThan(160);
      expect(fives + accepted).toBe(400);
      const state = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
      expect(state.status).toBe(200);
      expect((state.body as { jobsRetained: number }).jobsRetained).toBe(accepted);
    } finally {
      await h.close();
    }
  });

  it('faults are switched on and off at run time through the admin API', async () => {
    const { h } = await manualEmulator();
    try {
      expect((await call(h, 'GET', `${h.url}/health`, { auth: 'wrong' })).status).toBe(401);
      expect((await call(h, 'PUT', `${h.adminUrl}/faults`, { body: ['auth-open'] })).status).toBe(200);
      expect((await call(h, 'GET', `${h.url}/health`, { auth: 'wrong' })).status).toBe(200);
      expect((await call(h, 'GET', `${h.adminUrl}/state`, { auth: 'wrong' })).status).toBe(401);
      const list = await call(h, 'GET', `${h.adminUrl}/faults`);
      expect(
        (list.body as { faults: { name: string; enabled: boolean }[] }).faults.find(
          (f) => f.name === 'auth-open',
        )?.enabled,
      ).toBe(true);
      expect((await call(h, 'DELETE', `${h.adminUrl}/faults/auth-open`)).status).toBe(200);
      expect((await call(h, 'GET', `${h.url}/health`, { auth: 'wrong' })).status).toBe(401);
      expect((await call(h, 'PUT', `${h.adminUrl}/faults`, { body: { 'no-such-fault': true } })).status).toBe(
        400,
      );
      expect((await call(h, 'PUT', `${h.adminUrl}/faults`, { body: ['server-errors=2'] })).status).toBe(400);
    } finally {
      await h.close();
    }
  });
});

describe('fault details the probes do not show', () => {
  it('malformed-bodies: in the bare-array stream shape each chunk carries data instead of output', async () => {
    const { h, clock } = await manualEmulator({ streamShape: 'array', faults: ['malformed-bodies'] });
    try {
      const id = (
        (await call(h, 'POST', `${h.url}/run`, { body: { input: { stream: 2, sleep_ms: 0 } } })).body as {
          id: string;
        }
      ).id;
      clock.advance(0);
      const r = await call(h, 'GET', `${h.url}/stream/${id}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual([
        { data: { chunk: 0, text: 'chunk 0' } },
        { data: { chunk: 1, text: 'chunk 1' } },
      ]);
    } finally {
      await h.close();
    }
  });

  it('odd-status: /runsync and /status-sync answer 202 with the usual body', async () => {
    const { h, clock } = await manualEmulator({ faults: ['odd-status'] });
    try {
      const sync = call(h, 'POST', `${h.url}/runsync`, { body: { input: { hello: 1 } } });
      await until(
        async () =>
          ((await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`)).body as { jobsRetained: number })
            .jobsRetained === 1,
        'runsync job',
      );
      clock.advance(10_000);
      const r = await sync;
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({ status: 'COMPLETED', output: { hello: 1 } });
      const again = await call(h, 'GET', `${h.url}/status-sync/${(r.body as { id: string }).id}`);
      expect([again.status, (again.body as Body).status]).toEqual([202, 'COMPLETED']);
    } finally {
      await h.close();
    }
  });

  it('webhook-wrong-status: COMPLETED is sent as FAILED with an error, FAILED as COMPLETED with output and timings', async () => {
    const { h, clock } = await manualEmulator({
      faults: ['webhook-wrong-status'],
      workersMin: 2,
      workersMax: 2,
    });
    const receiver = await webhookReceiver(() => clock.now(), 200);
    try {
      const ok = await submitWithHook(h, { sleep_ms: 0 }, receiver.url);
      const bad = await submitWithHook(h, { sleep_ms: 0, fail: 'boom' }, receiver.url);
      clock.advance(0);
      await until(() => receiver.hits.length >= 2, 'both webhooks');
      const byId = new Map(receiver.hits.map((hit) => [(hit.body as Body).id, hit.body as Body]));
      expect(byId.get(ok)).toMatchObject({ status: 'FAILED', error: expect.any(String) as unknown });
      expect(byId.get(ok)).not.toHaveProperty('output');
      expect(byId.get(bad)).toMatchObject({
        status: 'COMPLETED',
        delayTime: 0,
        executionTime: 0,
        output: { sleep_ms: 0, fail: 'boom' },
      });
      expect(byId.get(bad)).not.toHaveProperty('error');
    } finally {
      await receiver.close();
      await h.close();
    }
  });

  it('webhook-duplicate: the same body once more, 1 s after the 200, and only once', async () => {
    const { h, clock } = await manualEmulator({ faults: ['webhook-duplicate'] });
    const receiver = await webhookReceiver(() => clock.now(), 200);
    try {
      await submitWithHook(h, { sleep_ms: 0 }, receiver.url);
      clock.advance(0);
      await until(
        async () => receiver.hits.length === 1 && (await webhooksPending(h)) === 0,
        'first webhook',
      );
      for (let i = 0; i < 5; i++) {
        clock.advance(1000);
        await until(async () => (await webhooksPending(h)) === 0, 'webhook answers');
      }
      expect(receiver.hits).toHaveLength(2);
      const [first, second] = receiver.hits;
      expect((second?.at ?? 0) - (first?.at ?? 0)).toBe(1000);
      expect(second?.body).toEqual(first?.body);
    } finally {
      await receiver.close();
      await h.close();
    }
  });

  it('timeout-early: TIMED_OUT at half the executionTimeout, and executionTime says so', async () => {
    const { h, clock } = await manualEmulator({ faults: ['timeout-early'] });
    try {
      const id = (
        (
          await call(h, 'POST', `${h.url}/run`, {
            body: { input: { sleep_ms: 60_000 }, policy: { executionTimeout: 10_000 } },
          })
        ).body as { id: string }
      ).id;
      clock.advance(4999);
      expect(((await call(h, 'GET', `${h.url}/status/${id}`)).body as Body).status).toBe('IN_PROGRESS');
      clock.advance(1);
      expect((await call(h, 'GET', `${h.url}/status/${id}`)).body).toMatchObject({
        status: 'TIMED_OUT',
        executionTime: 5000,
      });
    } finally {
      await h.close();
    }
  });

  it('runsync-overwait: /status-sync of a finished job answers at twice its wait, with the job', async () => {
    const { h, clock } = await manualEmulator({ faults: ['runsync-overwait'] });
    try {
      const id = (
        (await call(h, 'POST', `${h.url}/run`, { body: { input: { sleep_ms: 0 } } })).body as { id: string }
      ).id;
      clock.advance(0);
      let answered = false;
      const timers = clock.pending;
      const answer = call(h, 'GET', `${h.url}/status-sync/${id}?wait=1000`).then((r) => {
        answered = true;
        return r;
      });
      // The request is in once it has set its timer.
      await until(() => clock.pending === timers + 1, 'the status-sync request');
      clock.advance(1999);
      // Still waiting on its clock timer (an answer cancels it): no real time needs to pass to see it.
      expect(clock.pending).toBe(timers + 1);
      expect(answered).toBe(false);
      clock.advance(1);
      const r = await answer;
      expect([r.status, (r.body as Body).status]).toEqual([200, 'COMPLETED']);
      expect(clock.pending).toBe(timers);
    } finally {
      await h.close();
    }
  });

  it('timing-inflated: the stream envelope and webhooks report delayTime an hour larger too', async () => {
    const { h, clock } = await manualEmulator({ faults: ['timing-inflated'] });
    const receiver = await webhookReceiver(() => clock.now(), 200);
    try {
      const id = await submitWithHook(h, { stream: 1, sleep_ms: 7 }, receiver.url);
      clock.advance(7);
      await until(() => receiver.hits.length === 1, 'webhook');
      expect(receiver.hits[0]?.body).toMatchObject({ delayTime: 3_600_000, executionTime: 7 });
      expect((await call(h, 'GET', `${h.url}/stream/${id}`)).body).toMatchObject({
        status: 'COMPLETED',
        delayTime: 3_600_000,
        executionTime: 7,
      });
    } finally {
      await receiver.close();
      await h.close();
    }
  });

  // stream-duplicate repeats a chunk up to the answer that says final (a repeat after it would be
  // stream-after-final's rule), so its job is still running at the first answer.
  it('stream-duplicate and stream-after-final repeat chunks with their identity (output.chunk)', async () => {
    for (const [fault, sleepMs, expected] of [
      ['stream-duplicate', 1000, [[0], [0, 1], []]],
      ['stream-after-final', 0, [[0, 1], [1], [1]]],
    ] as const) {
      const { h, clock } = await manualEmulator({ faults: [fault] });
      try {
        const input = { stream: 2, sleep_ms: sleepMs };
        const id = ((await call(h, 'POST', `${h.url}/run`, { body: { input } })).body as { id: string }).id;
        clock.advance(sleepMs / 2);
        const seen: unknown[] = [];
        for (let i = 0; i < 3; i++) {
          const s = (await call(h, 'GET', `${h.url}/stream/${id}`)).body as {
            stream: { output: { chunk: number } }[];
          };
          seen.push(s.stream.map((ch) => ch.output.chunk));
          if (i === 0) clock.advance(sleepMs / 2);
        }
        expect(seen, fault).toEqual(expected);
      } finally {
        await h.close();
      }
    }
  });

  it('params-unchecked: out-of-range ttl and executionTimeout are clamped into range', async () => {
    const { h } = await manualEmulator({ faults: ['params-unchecked'], workersMin: 0 });
    try {
      const body = { input: {}, policy: { ttl: 1, executionTimeout: 8 * 24 * 3600 * 1000 } };
      const id = ((await call(h, 'POST', `${h.url}/run`, { body })).body as { id: string }).id;
      const job = (await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm/jobs/${id}`)).body as {
        ttlAt: number;
        queuedAt: number;
        executionTimeout: number;
      };
      expect([job.ttlAt - job.queuedAt, job.executionTimeout]).toEqual([
        LIMITS.ttl.min,
        LIMITS.executionTimeout.max,
      ]);
      expect(
        (await call(h, 'POST', `${h.url}/run`, { body: { input: {}, policy: { ttl: 'soon' } } })).status,
      ).toBe(400);
    } finally {
      await h.close();
    }
  });

  it('bare-key-rejected leaves the control plane alone', async () => {
    const { h } = await manualEmulator({ faults: ['bare-key-rejected'] });
    try {
      expect((await call(h, 'GET', `${h.url}/health`, { auth: h.apiKey })).status).toBe(401);
      expect(
        (await call(h, 'POST', `${h.managementUrl}/pods/jobstorm-pod/start`, { auth: h.apiKey })).status,
      ).toBe(401);
      expect((await call(h, 'GET', `${h.adminUrl}/state`, { auth: h.apiKey })).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});

async function submitWithHook(
  h: EmulatorHandle,
  input: Record<string, unknown>,
  webhook: string,
): Promise<string> {
  const r = await call(h, 'POST', `${h.url}/run`, { body: { input, webhook } });
  return (r.body as { id: string }).id;
}
