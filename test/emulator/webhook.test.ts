import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts/queue/limits.js';
import { WebhookBodySchema } from '../../contracts/queue/schemas.js';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import {
  manualEmulator,
  submit,
  until,
  valid,
  webhookReceiver,
  webhooksDone,
  webhooksPending,
  type Receiver,
} from './helpers.js';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.map((c) => c()));
  cleanup = [];
});

async function setup(answer: number) {
  const { h, clock } = await manualEmulator();
  const receiver = await webhookReceiver(() => clock.now(), answer);
  cleanup.push(
    () => h.close(),
    () => receiver.close(),
  );
  return { h, clock, receiver };
}

/** Waits until the receiver has `n` hits and the emulator has taken every answer in. */
async function settled(h: EmulatorHandle, receiver: Receiver, n: number): Promise<void> {
  await until(() => receiver.hits.length >= n, `${String(n)} webhook hits`);
  await until(async () => (await webhooksPending(h)) === 0, 'webhook answers processed');
}

describe('webhooks (SPEC "Events")', () => {
  it('a receiver answering 500 sees exactly 3 attempts, 10 s apart', async () => {
    const { h, clock, receiver } = await setup(500);
    const id = await submit(h, { sleep_ms: 100 }, { webhook: receiver.url });
    clock.advance(100);
    await settled(h, receiver, 1);
    for (let attempt = 2; attempt <= 3; attempt++) {
      clock.advance(LIMITS.webhookRetrySpacing - 1);
      expect(receiver.hits).toHaveLength(attempt - 1);
      clock.advance(1);
      await settled(h, receiver, attempt);
    }
    clock.advance(10 * LIMITS.webhookRetrySpacing);
    expect(await webhooksDone(h)).toBe(true);
    expect(receiver.hits).toHaveLength(3);
    const gaps = receiver.hits.slice(1).map((x, i) => x.at - (receiver.hits[i]?.at ?? NaN));
    expect(gaps).toEqual([LIMITS.webhookRetrySpacing, LIMITS.webhookRetrySpacing]);
    for (const hit of receiver.hits) {
      expect(valid(WebhookBodySchema, hit.body)).toMatchObject({
        id,
        status: 'COMPLETED',
        executionTime: 100,
        output: { sleep_ms: 100 },
        input: { sleep_ms: 100 },
        webhook: receiver.url,
      });
    }
  });

  it('a receiver answering 200 gets one delivery; a FAILED job is delivered with its error string', async () => {
    const { h, clock, receiver } = await setup(200);
    const ok = await submit(h, { sleep_ms: 5 }, { webhook: receiver.url });
    const bad = await submit(h, { sleep_ms: 5, fail: 'kaput' }, { webhook: receiver.url });
    clock.advance(5);
    await settled(h, receiver, 2);
    clock.advance(60_000);
    expect(await webhooksDone(h)).toBe(true);
    expect(receiver.hits).toHaveLength(2);
    const bodies = receiver.hits.map((x) => valid(WebhookBodySchema, x.body));
    expect(bodies.find((b) => b.id === ok)?.status).toBe('COMPLETED');
    expect(bodies.find((b) => b.id === bad)).toMatchObject({ status: 'FAILED', error: 'kaput' });
  });

  it('a receiver that recovers stops the retries', async () => {
    const { h, clock, receiver } = await setup(503);
    await submit(h, { sleep_ms: 0 }, { webhook: receiver.url });
    clock.advance(0);
    await settled(h, receiver, 1);
    receiver.answer = 200;
    clock.advance(LIMITS.webhookRetrySpacing);
    await settled(h, receiver, 2);
    clock.advance(5 * LIMITS.webhookRetrySpacing);
    expect(await webhooksDone(h)).toBe(true);
    expect(receiver.hits).toHaveLength(2);
  });
});
