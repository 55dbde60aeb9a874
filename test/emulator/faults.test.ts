import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts/queue/limits.js';
import { ErrorBodySchema, HealthResponseSchema, StreamEnvelopeSchema } from '../../contracts/queue/schemas.js';
import type { ManualClock } from '../../src/core/manual-clock.js';
import { FAULT_NAMES, FAULTS, type EmulatorHandle, type FaultName } from '../../src/emulator/index.js';
import { call, manualEmulator, until, valid, webhookReceiver, webhooksPending } from './helpers.js';

/*
 * Each fault must change exactly the behaviour it names. A fingerprint runs one probe per rule,
 * each on an endpoint of its own; a fault's fingerprint must differ from the faithful one in
 * exactly the probes listed for it.
 */

interface Ctx {
  h: EmulatorHandle;
  clock: ManualClock;
  base: (probe: string) => string;
}

async function run(c: Ctx, probe: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await call(c.h, 'POST', `${c.base(probe)}/run`, { body: { input, ...extra } });
  if (r.status !== 200) throw new Error(`probe ${probe}: /run answered ${String(r.status)} ${r.text}`);
  return (r.body as { id: string }).id;
}

async function statusOf(c: Ctx, probe: string, id: string): Promise<{ code: number; body: Record<string, unknown> }> {
  const r = await call(c.h, 'GET', `${c.base(probe)}/status/${id}`);
  return { code: r.status, body: r.body as Record<string, unknown> };
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
    const answer = (await call(c.h, 'POST', `${c.base('cancel')}/cancel/${id}`)).body as { status: string };
    c.clock.advance(2000);
    return [answer.status, (await statusOf(c, 'cancel', id)).body.status];
  },
  retry: async (c) => {
    const id = await run(c, 'retry', { sleep_ms: 0 });
    c.clock.advance(0);
    return (await call(c.h, 'POST', `${c.base('retry')}/retry/${id}`)).status;
  },
  purge: async (c) => {
    const running = await run(c, 'purge', { sleep_ms: 1000 });
    await run(c, 'purge', { sleep_ms: 1000 });
    const removed = ((await call(c.h, 'POST', `${c.base('purge')}/purge-queue`)).body as { removed: number }).removed;
    return [removed, (await statusOf(c, 'purge', running)).body.status];
  },
  lose: async (c) => {
    const id = await run(c, 'lose', { sleep_ms: 0 });
    c.clock.advance(10_000);
    return (await statusOf(c, 'lose', id)).code;
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
  webhook: async (c) => {
    const receiver = await webhookReceiver(() => c.clock.now(), 500);
    try {
      await run(c, 'webhook', { sleep_ms: 0 }, { webhook: receiver.url });
      c.clock.advance(0);
      await until(() => receiver.hits.length >= 1, 'first webhook');
      for (let i = 0; i < 4; i++) {
        await until(async () => (await webhooksPending(c.h)) === 0, 'webhook answer');
        c.clock.advance(LIMITS.webhookRetrySpacing);
        await new Promise((r) => setTimeout(r, 10));
      }
      await until(async () => (await webhooksPending(c.h)) === 0, 'webhook answer');
      return receiver.hits.length;
    } finally {
      await receiver.close();
    }
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
    await run(c, 'health', { sleep_ms: 0 });
    c.clock.advance(0);
    return valid(HealthResponseSchema, (await call(c.h, 'GET', `${c.base('health')}/health`)).body).jobs;
  },
  chunk: async (c) => {
    const id = await run(c, 'chunk', { stream: 1, chunk_bytes: 1_500_000, sleep_ms: 0 });
    c.clock.advance(0);
    const s = valid(StreamEnvelopeSchema, (await call(c.h, 'GET', `${c.base('chunk')}/stream/${id}`)).body);
    return s.stream.every((ch) => Buffer.byteLength(JSON.stringify(ch)) <= LIMITS.streamChunk.surelyAccepted);
  },
  server: async (c) => {
    let fives = 0;
    for (let i = 0; i < 40; i++) if ((await call(c.h, 'GET', `${c.base('server')}/health`)).status >= 500) fives++;
    return fives;
  },
};

/** Which probes each fault must change (and no others). */
const CHANGES: Record<Exclude<FaultName, 'server-errors'>, string[]> = {
  'early-429': ['rate'],
  'no-429': ['rate'],
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
    expect(FAULT_NAMES.sort()).toEqual([...Object.keys(CHANGES), 'server-errors'].sort());
    for (const name of FAULT_NAMES) {
      expect(FAULTS[name].length).toBeGreaterThan(20);
      expect(FAULTS[name]).not.toMatch(/\n/);
    }
  });

  it('the faithful emulator keeps every rule', () => {
    expect(faithful).toEqual({
      rate: RATE_CANCEL,
      cancel: ['CANCELLED', 'CANCELLED'],
      retry: 400,
      purge: [1, 'IN_PROGRESS'],
      lose: 200,
      ttl: 404,
      timeout: 'TIMED_OUT',
      types: ['number', 'number'],
      backwards: ['COMPLETED', 'COMPLETED', 'COMPLETED'],
      webhook: 1 + LIMITS.webhookRetries,
      oversize: 413,
      auth: [401, 401, 401],
      health: { completed: 2, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
      chunk: true,
      server: 0,
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
      expect((list.body as { faults: { name: string; enabled: boolean }[] }).faults.find((f) => f.name === 'auth-open')?.enabled).toBe(true);
      expect((await call(h, 'DELETE', `${h.adminUrl}/faults/auth-open`)).status).toBe(200);
      expect((await call(h, 'GET', `${h.url}/health`, { auth: 'wrong' })).status).toBe(401);
      expect((await call(h, 'PUT', `${h.adminUrl}/faults`, { body: { 'no-such-fault': true } })).status).toBe(400);
      expect((await call(h, 'PUT', `${h.adminUrl}/faults`, { body: ['server-errors=2'] })).status).toBe(400);
    } finally {
      await h.close();
    }
  });
});
