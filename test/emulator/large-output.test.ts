import { spawn } from 'node:child_process';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_GENERATED_BYTES } from '../../src/emulator/handler-plan.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { SHARE_MIN_BYTES } from '../../src/emulator/json-payload.js';
import { call, expectStatus, until, webhookReceiver } from './helpers.js';

/*
 * A 64 MiB generated output read by 9 concurrent /status calls used to cost 2.19 GB: each reader
 * built the string, its JSON and its buffer. The output is now written from one shared buffer with
 * backpressure, so concurrent readers cost socket buffers, not copies.
 */

const MiB = 1024 * 1024;
const READERS = 9;
const XS = Buffer.alloc(4 * MiB, 'x');

let h: EmulatorHandle;
beforeAll(async () => {
  h = await startEmulator({ coldStartMs: 0, workersMin: 2, workersMax: 2 });
});
afterAll(async () => {
  await h.close();
});

interface Read {
  status: number;
  length: number;
  declared: number;
  head: string;
  tail: string;
  xs: number;
}

/** Reads a response without keeping it: its length, its first and last bytes, and how many are "x". */
function readCounting(url: string, apiKey: string, agent: HttpAgent): Promise<Read> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { authorization: apiKey }, agent }, (res) => {
      const r: Read = {
        status: res.statusCode ?? 0,
        length: 0,
        declared: Number(res.headers['content-length']),
        head: '',
        tail: '',
        xs: 0,
      };
      res.on('data', (c: Buffer) => {
        if (r.head.length < 200) r.head += c.subarray(0, 200 - r.head.length).toString('latin1');
        r.tail = (r.tail + c.subarray(Math.max(0, c.length - 200)).toString('latin1')).slice(-200);
        // All-"x" chunks (nearly all of them) compare in one memcmp; only the edges are counted by byte.
        if (c.length <= XS.length && c.equals(XS.subarray(0, c.length))) r.xs += c.length;
        else for (let i = 0; i < c.length; i++) if (c[i] === 0x78) r.xs++;
        r.length += c.length;
      });
      res.on('end', () => resolve(r));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function completedJob(
  input: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const r = await call(h, 'POST', `${h.url}/run`, { body: { input: { sleep_ms: 0, ...input }, ...extra } });
  expectStatus(r, 200);
  const id = (r.body as { id: string }).id;
  await until(async () => {
    const s = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
    const health = (s.body as { health: { jobs: { inProgress: number; inQueue: number } } }).health;
    return health.jobs.inProgress === 0 && health.jobs.inQueue === 0;
  }, 'the job to finish');
  return id;
}

/** The emulator in a child process (fixtures/memory-probe.mjs) that measures its own memory. */
interface Probe {
  url: string;
  adminUrl: string;
  apiKey: string;
  ask(line: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function startProbe(): Promise<Probe> {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./fixtures/memory-probe.mjs', import.meta.url))],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const waiting: ((v: Record<string, unknown>) => void)[] = [];
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => waiting.shift()?.(JSON.parse(line) as Record<string, unknown>));
  const next = (): Promise<Record<string, unknown>> => new Promise((resolve) => waiting.push(resolve));
  const first = await next();
  return {
    url: first.url as string,
    adminUrl: first.adminUrl as string,
    apiKey: first.apiKey as string,
    ask: (line) => {
      const answer = next();
      child.stdin.write(`${line}\n`);
      return answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
        // Real time: a real child process that must not outlive the test.
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

// Side by side: each probe is a process of its own and measures only itself, and the cases on the
// shared emulator below wait each for its own job.
describe.concurrent('large generated outputs', () => {
  it(`${String(READERS)} concurrent /status reads of a 64 MiB output stay far below ${String(READERS)} copies in the emulator's memory, and each is complete`, async () => {
    expect(MAX_GENERATED_BYTES).toBe(64 * MiB);
    const probe = await startProbe();
    const agent = new HttpAgent({ keepAlive: false, maxSockets: READERS });
    try {
      const r = await call(probe, 'POST', `${probe.url}/run`, {
        body: { input: { sleep_ms: 0, output_bytes: MAX_GENERATED_BYTES } },
      });
      expectStatus(r, 200);
      const id = (r.body as { id: string }).id;
      await until(
        async () =>
          (
            (await call(probe, 'GET', `${probe.adminUrl}/endpoints/jobstorm`)).body as {
              health: { jobs: { completed: number } };
            }
          ).health.jobs.completed === 1,
        'the job to complete',
      );
      await probe.ask('mark');
      const reads = await Promise.all(
        Array.from({ length: READERS }, () => readCounting(`${probe.url}/status/${id}`, probe.apiKey, agent)),
      );
      const peak = (await probe.ask('peak')) as { rss: number; arrayBuffers: number };
      for (const read of reads) {
        expect(read.status).toBe(200);
        expect(read.length).toBe(read.declared);
        expect(read.head).toMatch(new RegExp(`^\\{"id":"${id}","status":"COMPLETED",.*"output":"x`));
        expect(read.tail).toMatch(/x"(,"workerId":"emu-worker-\d+")?\}$/);
        expect(read.xs).toBeGreaterThanOrEqual(MAX_GENERATED_BYTES);
      }
      const copy = MAX_GENERATED_BYTES;
      const grew = `RSS grew by ${String(Math.round(peak.rss / MiB))} MiB, buffers by ${String(Math.round(peak.arrayBuffers / MiB))} MiB`;
      // One copy per reader would be 576 MiB; streaming from one shared buffer needs a fraction of one.
      expect(peak.rss, grew).toBeLessThan(copy);
      expect(peak.arrayBuffers, grew).toBeLessThan(copy / 4);
    } finally {
      agent.destroy();
      await probe.close();
    }
  }, 120_000);

  it(`${String(READERS)} concurrent /status reads of a 15 MB echoed input share one serialization`, async () => {
    const probe = await startProbe();
    const agent = new HttpAgent({ keepAlive: false, maxSockets: READERS });
    try {
      const size = 15_000_000;
      const input = { sleep_ms: 0, blob: 'y'.repeat(size) };
      const r = await call(probe, 'POST', `${probe.url}/runsync`, { body: { input } });
      expectStatus(r, 200);
      expect((r.body as { output: typeof input }).output.blob.length).toBe(size);
      const id = (r.body as { id: string }).id;
      await probe.ask('mark');
      const reads = await Promise.all(
        Array.from({ length: READERS }, () => readCounting(`${probe.url}/status/${id}`, probe.apiKey, agent)),
      );
      const peak = (await probe.ask('peak')) as { rss: number; arrayBuffers: number };
      for (const read of reads) {
        expect(read.status).toBe(200);
        expect(read.length).toBe(read.declared);
        expect(read.head).toMatch(/"output":\{"sleep_ms":0,"blob":"yyyy/);
        expect(read.tail).toMatch(/yyyy"\}(,"workerId":"emu-worker-\d+")?\}$/);
      }
      const grew = `RSS grew by ${String(Math.round(peak.rss / MiB))} MiB, buffers by ${String(Math.round(peak.arrayBuffers / MiB))} MiB`;
      // A serialization per reader would be 9 strings and 9 buffers of 15 MB.
      expect(peak.arrayBuffers, grew).toBeLessThan(2 * size);
      expect(peak.rss, grew).toBeLessThan(5 * size);
    } finally {
      agent.destroy();
      await probe.close();
    }
  }, 120_000);

  it('a large echoed input reads back equal from /status, the webhook and the admin API', async () => {
    // Real time: a real webhook receiver on a socket; its times are not judged.
    const hook = await webhookReceiver(() => Date.now());
    try {
      const input = {
        sleep_ms: 0,
        rows: Array.from({ length: 5000 }, (_, i) => ({
          i,
          name: `row ${String(i)} é🦄`,
          tags: ['a', 'b', null, 1.5],
        })),
        text: '"quoted" \\ and \n',
      };
      expect(JSON.stringify(input).length).toBeGreaterThan(SHARE_MIN_BYTES);
      const id = await completedJob(input, { webhook: hook.url });
      for (let i = 0; i < 2; i++) {
        const s = await call(h, 'GET', `${h.url}/status/${id}`);
        expect(s.body).toMatchObject({ status: 'COMPLETED' });
        expect((s.body as { output: unknown }).output).toEqual(input);
      }
      await until(() => hook.hits.length === 1, 'the webhook delivery', 10_000);
      expect((hook.hits[0]?.body as { input: unknown }).input).toEqual(input);
      const admin = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm/jobs/${id}`);
      expect((admin.body as { input: unknown; view: { output: unknown } }).input).toEqual(input);
      expect((admin.body as { view: { output: unknown } }).view.output).toEqual(input);
    } finally {
      await hook.close();
    }
  }, 30_000);

  it('a webhook with a large output is delivered whole and valid', async () => {
    // Real time: a real webhook receiver on a socket; its times are not judged.
    const hook = await webhookReceiver(() => Date.now());
    try {
      const bytes = 3 * MiB + 7;
      await completedJob({ output_bytes: bytes }, { webhook: hook.url });
      await until(() => hook.hits.length === 1, 'the webhook delivery', 10_000);
      const body = hook.hits[0]?.body as { status: string; output: string; input: Record<string, unknown> };
      expect(body.status).toBe('COMPLETED');
      expect(body.output).toBe('x'.repeat(bytes));
      expect(body.input).toEqual({ sleep_ms: 0, output_bytes: bytes });
    } finally {
      await hook.close();
    }
  }, 30_000);

  it('streamed chunks over 1 MB arrive as complete pieces, and the COMPLETED output holds all of them', async () => {
    const chunk = 1_500_000;
    const id = await completedJob({ stream: 2, chunk_bytes: chunk });
    const s = await call(h, 'GET', `${h.url}/stream/${id}`);
    expectStatus(s, 200);
    const pieces = (s.body as { stream: { output: string }[] }).stream.map((p) => p.output);
    expect(pieces.length).toBe(4);
    expect(pieces.join('')).toBe('x'.repeat(2 * chunk));
    const st = await call(h, 'GET', `${h.url}/status/${id}`);
    expect((st.body as { output: string[] }).output.join('')).toBe('x'.repeat(2 * chunk));
  }, 30_000);
});
