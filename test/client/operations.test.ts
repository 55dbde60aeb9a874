import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobClient, type JobClient } from '../../src/client/index.js';
import { systemClock } from '../../src/core/clock.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { isTrimmedString } from '../../src/core/trim-body.js';
import { sendJson, startServer, type TestServer } from './test-server.js';

const KEY = 'sk-test-operations-1234567890';

/** Answers like the service would, enough for every operation's record to be meaningful. */
function answer(url: string): { status: number; body: unknown } {
  const path = url.replace(/^\/(v2\/ep|v1)/, '').split('?')[0] ?? '';
  if (path === '/run') return { status: 200, body: { id: 'job-1', status: 'IN_QUEUE' } };
  if (path === '/runsync')
    return {
      status: 200,
      body: { id: 'sync-1', status: 'COMPLETED', delayTime: 1, executionTime: 2, output: 'x'.repeat(1000) },
    };
  if (path.startsWith('/status-sync/'))
    return { status: 200, body: { id: 'job-1', status: 'COMPLETED', delayTime: 1, executionTime: 2 } };
  if (path.startsWith('/status/')) return { status: 200, body: { id: 'job-1', status: 'IN_PROGRESS' } };
  if (path.startsWith('/stream/'))
    return { status: 200, body: { status: 'IN_PROGRESS', stream: [{ output: 'a' }] } };
  if (path.startsWith('/cancel/')) return { status: 200, body: { id: 'job-1', status: 'CANCELLED' } };
  if (path.startsWith('/retry/')) return { status: 200, body: { id: 'job-1', status: 'IN_QUEUE' } };
  if (path === '/purge-queue') return { status: 200, body: { removed: 3, status: 'completed' } };
  if (path === '/health')
    return {
      status: 200,
      body: {
        jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
        workers: { idle: 1, running: 0 },
      },
    };
  if (path.startsWith('/pods/')) return { status: 200, body: {} };
  if (path === '/endpoints') return { status: 200, body: { id: 'ep-new', templateId: 't1' } };
  return { status: 404, body: { error: 'no route' } };
}

describe('JobClient operations', () => {
  let server: TestServer;
  let records: ExchangeRecord[];
  let bearer: JobClient;
  let bare: JobClient;

  beforeAll(async () => {
    server = await startServer((req, res) => {
      const a = answer(req.url);
      sendJson(res, a.status, a.body);
    });
    records = [];
    const common = {
      apiKey: KEY,
      connections: 4,
      timeoutMs: 5000,
      clock: systemClock,
      onRecord: (r: ExchangeRecord) => records.push(r),
      shard: '1/2',
    };
    bearer = createJobClient({
      ...common,
      baseUrl: `${server.url}/v2/ep`,
      managementUrl: `${server.url}/v1`,
      auth: 'bearer',
    });
    bare = createJobClient({ ...common, baseUrl: `${server.url}/v2/ep/`, auth: 'bare' });
  });

  afterAll(async () => {
    await bearer.close();
    await bare.close();
    await server.close();
  });

  it('sends each queue operation with its method, path, query, body and bearer key', async () => {
    server.seen.length = 0;
    records.length = 0;
    const run = await bearer.run({
      input: { prompt: 'hi' },
      policy: { ttl: 60_000, executionTimeout: 10_000, lowPriority: true },
      webhook: 'http://127.0.0.1:1/hook',
    });
    const runsync = await bearer.runsync({ input: { n: 1 } }, { wait: 5000 });
    const status = await bearer.status('job-1', { ttl: 6000 });
    const statusSync = await bearer.statusSync('job-1', { wait: 2000 });
    const stream = await bearer.stream('job 1/x');
    const cancel = await bearer.cancel('job-1');
    const retry = await bearer.retry('job-1');
    const purge = await bearer.purgeQueue();
    const health = await bearer.health();

    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v2/ep/run',
      'POST /v2/ep/runsync?wait=5000',
      'GET /v2/ep/status/job-1?ttl=6000',
      'GET /v2/ep/status-sync/job-1?wait=2000',
      'GET /v2/ep/stream/job%201%2Fx',
      'POST /v2/ep/cancel/job-1',
      'POST /v2/ep/retry/job-1',
      'POST /v2/ep/purge-queue',
      'GET /v2/ep/health',
    ]);
    for (const r of server.seen) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    const [runReq, runsyncReq] = server.seen;
    expect(JSON.parse(runReq?.body.toString() ?? '')).toEqual({
      input: { prompt: 'hi' },
      policy: { ttl: 60_000, executionTimeout: 10_000, lowPriority: true },
      webhook: 'http://127.0.0.1:1/hook',
    });
    expect(runReq?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(runsyncReq?.body.toString() ?? '')).toEqual({ input: { n: 1 } });
    for (const r of server.seen.slice(2)) expect(r.body.length).toBe(0);

    expect(run.jobId).toBe('job-1');
    expect(run.jobStatus).toBe('IN_QUEUE');
    expect(runsync.jobStatus).toBe('COMPLETED');
    expect(status.jobStatus).toBe('IN_PROGRESS');
    expect(statusSync.jobStatus).toBe('COMPLETED');
    expect(stream.body).toEqual({ status: 'IN_PROGRESS', stream: [{ output: 'a' }] });
    expect(cancel.jobStatus).toBe('CANCELLED');
    expect(retry.jobStatus).toBe('IN_QUEUE');
    expect(purge.body).toEqual({ removed: 3, status: 'completed' });
    expect(health.status).toBe(200);

    expect(records.map((r) => [r.op, r.method, r.path])).toEqual([
      ['run', 'POST', '/run'],
      ['runsync', 'POST', '/runsync?wait=5000'],
      ['status', 'GET', '/status/job-1?ttl=6000'],
      ['status-sync', 'GET', '/status-sync/job-1?wait=2000'],
      ['stream', 'GET', '/stream/job%201%2Fx'],
      ['cancel', 'POST', '/cancel/job-1'],
      ['retry', 'POST', '/retry/job-1'],
      ['purge-queue', 'POST', '/purge-queue'],
      ['health', 'GET', '/health'],
    ]);
    expect(records[0]?.req).toEqual({
      auth: 'bearer',
      ttl: 60_000,
      executionTimeout: 10_000,
      lowPriority: true,
      webhook: 'http://127.0.0.1:1/hook',
    });
    expect(records[1]?.req).toEqual({ auth: 'bearer', wait: 5000 });
    expect(records[2]?.req).toEqual({ auth: 'bearer', statusTtl: 6000 });
    expect(records[4]?.jobId).toBe('job 1/x');
  });

  it('sends the bare key when the client is configured for it', async () => {
    server.seen.length = 0;
    records.length = 0;
    await bare.health();
    await bare.run({ input: {} });
    expect(server.seen.map((r) => r.url)).toEqual(['/v2/ep/health', '/v2/ep/run']);
    for (const r of server.seen) expect(r.headers.authorization).toBe(KEY);
    expect(records.map((r) => r.req?.auth)).toEqual(['bare', 'bare']);
  });

  it('calls the management API with the bearer form', async () => {
    server.seen.length = 0;
    records.length = 0;
    const pod = await bearer.startPod('pod/7');
    const ep = await bearer.createEndpoint({
      name: 'e',
      templateId: 't1',
      gpuTypeIds: ['A'],
      workersMin: 0,
      workersMax: 2,
      idleTimeout: 5,
    });
    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v1/pods/pod%2F7/start',
      'POST /v1/endpoints',
    ]);
    expect(server.seen[1]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(server.seen[1]?.body.toString() ?? '')).toEqual({
      name: 'e',
      templateId: 't1',
      gpuTypeIds: ['A'],
      workersMin: 0,
      workersMax: 2,
      idleTimeout: 5,
    });
    expect(pod.status).toBe(200);
    expect(ep.body).toEqual({ id: 'ep-new', templateId: 't1' });
    expect(records.map((r) => [r.op, r.path])).toEqual([
      ['StartPod', '/pods/pod%2F7/start'],
      ['CreateEndpoint', '/endpoints'],
    ]);
    expect(() => bare.startPod('p')).toThrow(/managementUrl/);
  });

  it('writes records with ordered times, sizes, context and trimmed bodies', async () => {
    records.length = 0;
    const intendedAt = systemClock.now() - 5;
    const body = { input: { prompt: 'héllo' } };
    await bearer.runsync(body, {}, { intendedAt, flow: 'f', step: 's1', req: { probe: 'p' } });
    const [r] = records;
    if (!r) throw new Error('no record');
    expect(r.intendedAt).toBe(intendedAt);
    expect(r.intendedAt).toBeLessThanOrEqual(r.sentAt);
    expect(r.sentAt).toBeLessThanOrEqual(r.firstByteAt ?? Number.NaN);
    expect(r.firstByteAt).toBeLessThanOrEqual(r.endAt);
    expect(r.reqBytes).toBe(Buffer.byteLength(JSON.stringify(body)));
    const answered = JSON.stringify(answer('/runsync').body);
    expect(r.resBytes).toBe(Buffer.byteLength(answered));
    expect(r).toMatchObject({
      v: 1,
      type: 'exchange',
      status: 200,
      flow: 'f',
      step: 's1',
      shard: '1/2',
      attempt: 1,
      jobId: 'sync-1',
    });
    expect(r.req).toEqual({ auth: 'bearer', probe: 'p' });
    const output = (r.body as { output: unknown }).output;
    expect(isTrimmedString(output)).toBe(true);
    expect(output).toMatchObject({ length: 1000 });
    expect(r.error).toBeUndefined();
  });

  it('numbers records in order and lets the context override the shard', async () => {
    records.length = 0;
    await bearer.health();
    await bearer.health({ shard: '2/2' });
    const [a, b] = records;
    expect((b?.seq ?? 0) - (a?.seq ?? 0)).toBe(1);
    expect([a?.shard, b?.shard]).toEqual(['1/2', '2/2']);
  });

  it('sends pre-serialized bodies untouched and refuses fields the spec does not name', async () => {
    server.seen.length = 0;
    const bytes = Buffer.from('{"input":{"k":1}}');
    await bearer.run(bytes);
    expect(server.seen[0]?.body.equals(bytes)).toBe(true);
    const bad = { input: {}, extra: 1 } as unknown as Parameters<JobClient['run']>[0];
    await expect(bearer.run(bad)).rejects.toThrow(TypeError);
    const badPolicy = { input: {}, policy: { retries: 2 } } as unknown as Parameters<JobClient['run']>[0];
    await expect(bearer.run(badPolicy)).rejects.toThrow(/policy/);
  });

  it('sends raw probes with missing, wrong or given auth and odd bodies', async () => {
    server.seen.length = 0;
    records.length = 0;
    await bearer.send({ op: 'run', method: 'POST', path: '/run', body: '{"input":', auth: 'missing' });
    await bearer.send({ op: 'health', method: 'GET', path: '/health', auth: 'wrong' });
    await bearer.send({
      op: 'health',
      method: 'GET',
      path: '/health',
      auth: 'bare',
      headers: { 'x-probe': '1' },
    });
    await bearer.send({ op: 'StartPod', method: 'POST', path: '/pods/p/start', management: true });
    const [missing, wrong, bareReq, pod] = server.seen;
    expect(missing?.headers.authorization).toBeUndefined();
    expect(missing?.body.toString()).toBe('{"input":');
    expect(wrong?.headers.authorization).toMatch(/^Bearer /);
    expect(wrong?.headers.authorization).not.toContain(KEY);
    expect(bareReq?.headers.authorization).toBe(KEY);
    expect(bareReq?.headers['x-probe']).toBe('1');
    expect(pod?.url).toBe('/v1/pods/p/start');
    expect(records.map((r) => r.req?.auth)).toEqual(['missing', 'wrong', 'bare', 'bearer']);
    expect(records[0]?.reqBytes).toBe(9);
  });
});
