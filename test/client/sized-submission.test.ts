import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobClient, payloadProbe, sizedSubmission } from '../../src/client/index.js';
import { systemClock } from '../../src/core/clock.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { sendJson, startServer, type TestServer } from './test-server.js';

describe('sizedSubmission', () => {
  it.each([100, 1000, 65_537])('builds a valid submission of exactly %i bytes', (bytes) => {
    const body = sizedSubmission(bytes, { input: { prompt: 'é' }, policy: { ttl: 60_000 } });
    expect(body.length).toBe(bytes);
    const parsed = JSON.parse(body.toString()) as { input: { prompt: string; pad: string }; policy: unknown };
    expect(parsed.input.prompt).toBe('é');
    expect(parsed.policy).toEqual({ ttl: 60_000 });
    expect(parsed.input.pad).toMatch(/^a*$/);
  });

  it('refuses a size too small to hold the body', () => {
    expect(() => sizedSubmission(10)).toThrow(RangeError);
    expect(() => sizedSubmission(1.5)).toThrow(RangeError);
    expect(sizedSubmission(20).toString()).toBe('{"input":{"pad":""}}');
    expect(sizedSubmission(21).toString()).toBe('{"input":{"pad":"a"}}');
  });

  it('sizes the limit probes on both sides of 10 MB and 20 MB', () => {
    const cases = [
      [payloadProbe('run', 'inside'), 10_000_000, 'accept'],
      [payloadProbe('run', 'outside'), 10 * 1_048_576 + 1, 'reject'],
      [payloadProbe('runsync', 'inside'), 20_000_000, 'accept'],
      [payloadProbe('runsync', 'outside'), 20 * 1_048_576 + 1, 'reject'],
    ] as const;
    for (const [probe, bytes, expect_] of cases) {
      expect(probe.body.length).toBe(bytes);
      expect(probe.bytes).toBe(bytes);
      expect(probe.facts.expect).toBe(expect_);
      expect(probe.body.subarray(-4).toString()).toBe('a"}}');
    }
    expect(payloadProbe('run', 'outside').facts.probe).toBe('payload.run.outside');
  });
});

describe('sending a sized body', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((req, res) =>
      sendJson(res, 200, { id: 'j', status: 'IN_QUEUE', got: req.body.length }),
    );
  });
  afterAll(() => server.close());

  it('arrives byte for byte and is counted in the record', async () => {
    const records: ExchangeRecord[] = [];
    const c = createJobClient({
      baseUrl: `${server.url}/v2/ep`,
      apiKey: 'k',
      auth: 'bare',
      connections: 1,
      timeoutMs: 5000,
      clock: systemClock,
      onRecord: (r) => records.push(r),
    });
    const body = sizedSubmission(1_000_000);
    const r = await c.run(body, { req: { probe: 'payload.small' } });
    await c.close();
    expect((r.body as { got: number }).got).toBe(1_000_000);
    expect(server.seen[0]?.body.equals(body)).toBe(true);
    expect(records[0]?.reqBytes).toBe(1_000_000);
    expect(records[0]?.req).toEqual({ auth: 'bare', probe: 'payload.small' });
  });
});
