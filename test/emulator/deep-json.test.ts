import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { guardedClock } from '../../src/emulator/guarded-clock.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../src/emulator/http/json-depth.js';
import { startEmulatorInWorker, type EmulatorHandle } from '../../src/emulator/index.js';
import { BODY_TIMEOUT_MS } from '../../src/emulator/options.js';
import {
  call,
  expectStatus,
  manualEmulator,
  status,
  until,
  webhookReceiver,
  type Receiver,
} from './helpers.js';

/*
 * A body nested thousands deep used to overflow the stack: on /runsync it killed the process, on a
 * later /status it was a 500. The emulator now refuses it before parsing (400, naming the limit),
 * and everything up to the limit is served, echoed and delivered.
 */

const deep = (depth: number, leaf = '1'): string => '['.repeat(depth) + leaf + ']'.repeat(depth);
const deepObject = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const LIMIT_MESSAGE = new RegExp(`nested deeper than ${String(MAX_JSON_DEPTH)} levels`);

describe('nestedDeeperThan (one linear scan, no recursion)', () => {
  const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');
  it('counts arrays and objects, not brackets inside strings or escaped quotes', () => {
    expect(nestedDeeperThan(bytes(deep(3)), 3)).toBe(false);
    expect(nestedDeeperThan(bytes(deep(4)), 3)).toBe(true);
    expect(nestedDeeperThan(bytes(deepObject(4)), 3)).toBe(true);
    expect(nestedDeeperThan(bytes(`{"a":"${'['.repeat(500)}"}`), 3)).toBe(false);
    expect(nestedDeeperThan(bytes(`{"a":"\\"${'{'.repeat(10)}"}`), 3)).toBe(false);
    expect(nestedDeeperThan(bytes(`{"a":"\\\\",${'['.repeat(5)}`), 3)).toBe(true);
    expect(nestedDeeperThan(bytes(`{"é💥":"]]]]","b":[[[1]]]}`), 4)).toBe(false);
    expect(nestedDeeperThan(bytes(`{"é💥":"]]]]","b":[[[[1]]]]}`), 4)).toBe(true);
    // Closing brackets first (invalid JSON) never make a later opening look shallower than it is.
    expect(nestedDeeperThan(bytes(`]]]]${deep(4)}`), 3)).toBe(false);
  });

  it('scans a million levels without a stack', () => {
    expect(nestedDeeperThan(bytes(deep(1_000_000)), MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('deeply nested JSON on every route', () => {
  let h: EmulatorHandle;
  let clock: ManualClock;
  let hook: Receiver;
  beforeAll(async () => {
    ({ h, clock } = await manualEmulator({ workersMax: 4 }));
    hook = await webhookReceiver(() => clock.now());
  });
  afterAll(async () => {
    await hook.close();
    await h.close();
  });

  const D = 10_000;
  const bodies: [string, string][] = [
    ['top level', deep(D)],
    ['input', `{"input":{"a":${deep(D)}}}`],
    ['input (objects)', `{"input":${deepObject(D)}}`],
    ['input.fail', `{"input":{"fail":${deep(D)}}}`],
    ['with a webhook', `{"input":{"sleep_ms":0,"a":${deep(D)}},"webhook":"WEBHOOK"}`],
    ['policy', `{"input":{},"policy":${deep(D)}}`],
    ['webhook', `{"input":{},"webhook":${deep(D)}}`],
    ['s3Config', `{"input":{},"s3Config":${deepObject(D)}}`],
  ];

  it('/run and /runsync answer 400 naming the limit, and the emulator serves on', async () => {
    for (const op of ['run', 'runsync']) {
      for (const [where, body] of bodies) {
        const r = await call(h, 'POST', `${h.url}/${op}`, { raw: body.replace('WEBHOOK', hook.url) });
        expect(r.status, `${op} ${where}: ${r.text.slice(0, 200)}`).toBe(400);
        expect((r.body as { error: string }).error).toMatch(LIMIT_MESSAGE);
      }
    }
    expectStatus(await call(h, 'GET', `${h.url}/health`), 200);
  });

  it('management and admin bodies answer 400 naming the limit', async () => {
    const m = await call(h, 'POST', `${h.managementUrl}/endpoints`, {
      raw: `{"templateId":"t","name":${deep(D)}}`,
    });
    expectStatus(m, 400);
    expect((m.body as { message: string }).message).toMatch(LIMIT_MESSAGE);
    for (const [method, path] of [
      ['POST', '/clock/advance'],
      ['PUT', '/faults'],
      ['PUT', '/profile'],
    ]) {
      const r = await call(h, method as string, `${h.adminUrl}${path as string}`, { raw: deep(D) });
      expect(r.status, `${method as string} ${path as string}`).toBe(400);
      expect((r.body as { error: string }).error).toMatch(LIMIT_MESSAGE);
    }
  });

  it('input nested up to the limit is run, echoed by /status and the webhook, shown by the admin API; a deep input.fail is the error', async () => {
    // The submission body is one level above input: input itself may nest MAX - 1 deep.
    const nested = deep(MAX_JSON_DEPTH - 2);
    const r = await call(h, 'POST', `${h.url}/run`, {
      raw: `{"input":{"a":${nested}},"webhook":"${hook.url}"}`,
    });
    expectStatus(r, 200);
    const id = (r.body as { id: string }).id;
    clock.advance(60_000);
    await until(() => hook.hits.length === 1, 'the webhook delivery');
    const s = await status(h, id);
    expectStatus(s, 200);
    expect(s.body).toMatchObject({ status: 'COMPLETED', output: { a: JSON.parse(nested) as unknown } });
    expect(hook.hits[0]?.body).toMatchObject({
      status: 'COMPLETED',
      input: { a: JSON.parse(nested) as unknown },
    });
    expectStatus(await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm/jobs/${id}`), 200);
    const failing = await call(h, 'POST', `${h.url}/run`, { raw: `{"input":{"fail":${nested}}}` });
    expectStatus(failing, 200);
    clock.advance(60_000);
    const f = await status(h, (failing.body as { id: string }).id);
    expect(f.body).toMatchObject({ status: 'FAILED', error: nested });
  });
});

describe('the emulator in a worker thread', () => {
  it('refuses deep JSON with 400 and then serves a normal job', async () => {
    const h = await startEmulatorInWorker({ coldStartMs: 0 });
    try {
      for (const op of ['run', 'runsync']) {
        const r = await call(h, 'POST', `${h.url}/${op}`, { raw: `{"input":{"fail":${deep(10_000)}}}` });
        expectStatus(r, 400);
      }
      const r = await call(h, 'POST', `${h.url}/runsync`, { body: { input: { sleep_ms: 0, n: 1 } } });
      expectStatus(r, 200);
      expect(r.body).toMatchObject({ status: 'COMPLETED', output: { sleep_ms: 0, n: 1 } });
    } finally {
      await h.close();
    }
  });
});

describe('README', () => {
  it('states the depth limit and the body timeout the emulator applies', () => {
    const readme = readFileSync(new URL('../../docs/emulator.md', import.meta.url), 'utf8').replace(
      /\s+/g,
      ' ',
    );
    expect(readme).toContain(`at most ${String(MAX_JSON_DEPTH)} levels deep`);
    expect(readme).toContain(`no byte for ${String(BODY_TIMEOUT_MS / 1000)} s is answered 408`);
  });
});

describe('guardedClock', () => {
  it('an exception in a timer callback is reported, and later timers still fire', () => {
    const clock = new ManualClock();
    const errors: unknown[] = [];
    const guarded = guardedClock(clock, (err) => errors.push(err));
    const fired: number[] = [];
    guarded.schedule(10, () => {
      throw new Error('boom');
    });
    guarded.schedule(20, () => fired.push(clock.now()));
    clock.advance(30);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('boom');
    expect(fired).toEqual([20]);
  });
});
