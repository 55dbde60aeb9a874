import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobClient, type JobClientOptions } from '../../src/client/index.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { InstantSleepClock } from './test-clock.js';
import { sendJson, startServer, type TestServer } from './test-server.js';

/**
 * The server throttles each path a set number of times before answering 200; the path says how
 * (`/status/<n>-<retryAfter or "none">`).
 */
describe('429 retries', () => {
  let server: TestServer;
  const throttled = new Map<string, number>();

  beforeAll(async () => {
    server = await startServer((req, res) => {
      const [, spec = ''] = /\/status\/([^?]+)/.exec(req.url) ?? [];
      const [times = '0', after = 'none'] = spec.split('-');
      const seen = throttled.get(req.url) ?? 0;
      if (seen < Number(times)) {
        throttled.set(req.url, seen + 1);
        return sendJson(res, 429, { error: 'slow down' }, after === 'none' ? {} : { 'retry-after': after });
      }
      sendJson(res, 200, { id: spec, status: 'COMPLETED', delayTime: 0, executionTime: 0 });
    });
  });

  afterAll(() => server.close());

  function setup(retry: JobClientOptions['retry429']) {
    const records: ExchangeRecord[] = [];
    const clock = new InstantSleepClock();
    const client = createJobClient({
      baseUrl: `${server.url}/v2/ep`,
      apiKey: 'k',
      auth: 'bearer',
      connections: 1,
      timeoutMs: 2000,
      clock,
      retry429: retry,
      onRecord: (r) => records.push(r),
    });
    return { records, clock, client };
  }

  it('honours Retry-After and writes one record per attempt', async () => {
    const { records, clock, client } = setup({ attempts: 5, baseMs: 10, maxMs: 60_000, random: () => 0.5 });
    const r = await client.status('2-3');
    await client.close();
    expect(r.status).toBe(200);
    expect(clock.sleeps).toEqual([3000, 3000]);
    expect(records.map((x) => [x.attempt, x.status, x.retryAfter])).toEqual([
      [1, 429, '3'],
      [2, 429, '3'],
      [3, 200, undefined],
    ]);
    expect(server.seen.filter((s) => s.url.endsWith('/status/2-3'))).toHaveLength(3);
    // A retry was due when its backoff ended, so it is never intended before the last answer.
    const [first, second] = records;
    expect(second?.intendedAt).toBeGreaterThanOrEqual(first?.endAt ?? Number.POSITIVE_INFINITY);
  });

  it('caps a long Retry-After at maxMs', async () => {
    const { clock, client } = setup({ attempts: 3, baseMs: 10, maxMs: 250, random: () => 0.5 });
    await client.status('1-120');
    await client.close();
    expect(clock.sleeps).toEqual([250]);
  });

  it('backs off exponentially with full jitter when there is no Retry-After, and gives up after the attempts', async () => {
    const { records, clock, client } = setup({ attempts: 4, baseMs: 100, maxMs: 300, random: () => 0.5 });
    const r = await client.status('9-none');
    await client.close();
    // Ceilings 100, 200, 400→300; jitter 0.5 of each.
    expect(clock.sleeps).toEqual([50, 100, 150]);
    expect(r.status).toBe(429);
    expect(records.map((x) => x.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('does not retry without a policy, and stops retrying when the caller aborts', async () => {
    const none = setup(undefined);
    const r = await none.client.status('1-0');
    await none.client.close();
    expect(r.status).toBe(429);
    expect(none.records).toHaveLength(1);
    expect(none.records[0]?.attempt).toBe(1);

    // The caller gives up while the client waits out the backoff.
    const aborted = setup({ attempts: 5, baseMs: 10, maxMs: 100 });
    const controller = new AbortController();
    aborted.clock.sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
      aborted.clock.sleeps.push(ms);
      controller.abort();
      return Promise.reject(signal?.reason as Error);
    };
    const last = await aborted.client.status('3-0', {}, { signal: controller.signal });
    await aborted.client.close();
    expect(aborted.clock.sleeps).toHaveLength(1);
    expect(aborted.records.map((x) => [x.attempt, x.status])).toEqual([[1, 429]]);
    expect(last.status).toBe(429);
  });
});
