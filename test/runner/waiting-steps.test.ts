import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobClient } from '../../src/client/job-client.js';
import type { RetryPolicy } from '../../src/client/client-options.js';
import type { Clock } from '../../src/core/clock.js';
import { ManualClock } from '../../src/core/manual-clock.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { RouteWatch } from '../../src/core/route-watch.js';
import { compileFlows } from '../../src/runner/compiled-flow.js';
import { runIteration } from '../../src/runner/iteration.js';
import { newCounters, type RunContext } from '../../src/runner/run-context.js';
import { sendJson, startServer, type TestServer } from '../client/test-server.js';
import { inlineScenario } from './helpers.js';

/*
 * Issue 47 item 2: a step that waits is due when its wait ends as scheduled, and latency from the
 * intended start counts from then. One flow iteration runs against a small loopback server on a
 * manual clock: the server moves the clock by each operation's service time, and every timer of
 * the iteration fires LATE_MS after its time, as when jobstorm's loop is held.
 */

const LATE_MS = 30;

/** A manual clock whose every sleep ends `lateMs` after it was due (a held event loop). */
class LateTimers implements Clock {
  readonly manual = new ManualClock();

  constructor(private readonly lateMs: number) {}

  now(): number {
    return this.manual.now();
  }

  schedule(ms: number, fn: () => void): () => void {
    return this.manual.schedule(ms, fn);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const slept = this.manual.sleep(ms, signal);
    this.manual.advance(Math.max(0, ms) + this.lateMs);
    return slept;
  }
}

/** What the server answers, in clock time and in order. */
interface Script {
  /** Clock milliseconds each operation takes (the path's first segment after the endpoint). */
  serviceMs: Record<string, number>;
  /** The job's status on each /status (or /stream) answer; the last one repeats. */
  statuses: string[];
  /** Chunks each /stream answer carries; none once the list runs out. */
  chunks?: number[];
  /** /cancel answers 429 (Retry-After: 1) this many times first. */
  throttleCancels?: number;
}

let server: TestServer;
let script: Script = { serviceMs: {}, statuses: [] };
let clock = new LateTimers(LATE_MS);
let answered = { status: 0, stream: 0, cancel: 0 };

function answer(op: string): { status: number; body: unknown; headers?: Record<string, string> } {
  const job = (status: string): Record<string, unknown> => ({ id: 'job-1', status });
  const nth = (n: number): string => script.statuses[Math.min(n, script.statuses.length - 1)] ?? 'IN_QUEUE';
  if (op === 'run') return { status: 200, body: job('IN_QUEUE') };
  if (op === 'status') return { status: 200, body: job(nth(answered.status++)) };
  if (op === 'stream') {
    const n = answered.stream++;
    const stream = Array.from({ length: script.chunks?.[n] ?? 0 }, () => ({ output: 'x' }));
    return { status: 200, body: { ...job(nth(n)), stream } };
  }
  if (op === 'cancel' && answered.cancel++ < (script.throttleCancels ?? 0))
    return { status: 429, body: { error: 'slow down' }, headers: { 'retry-after': '1' } };
  if (op === 'cancel') return { status: 200, body: job('CANCELLED') };
  return { status: 200, body: {} };
}

beforeAll(async () => {
  server = await startServer((req, res) => {
    const op = /^\/v2\/ep\/([a-z-]+)/.exec(req.url)?.[1] ?? '';
    clock.manual.advance(script.serviceMs[op] ?? 0);
    const a = answer(op);
    sendJson(res, a.status, a.body, a.headers);
  });
});

afterAll(() => server.close());

/** Runs the scenario's one flow once, the arrival due at 0 and begun at `startAt`; its exchanges. */
async function iterate(
  steps: string,
  s: Script,
  o: { startAt?: number; retry429?: RetryPolicy } = {},
): Promise<ExchangeRecord[]> {
  script = s;
  clock = new LateTimers(LATE_MS);
  answered = { status: 0, stream: 0, cancel: 0 };
  clock.manual.advance(o.startAt ?? 0);
  const records: ExchangeRecord[] = [];
  const client = new JobClient({
    baseUrl: `${server.url}/v2/ep`,
    apiKey: 'test-key-0000',
    auth: 'bearer',
    connections: 1,
    timeoutMs: 10_000,
    clock,
    onRecord: (r) => records.push(r),
    ...(o.retry429 === undefined ? {} : { retry429: o.retry429 }),
  });
  const [flow] = compileFlows(
    inlineScenario(`name: due\nphases:\n  - { count: 1 }\nflows:\n  - name: f\n    steps:\n${steps}`).flows,
  );
  if (flow === undefined) throw new Error('the scenario has no flow');
  let seq = 0;
  const ctx: RunContext = {
    client,
    clock,
    emit: () => undefined,
    nextSeq: () => ++seq,
    blastTarget: { baseUrl: server.url, authorization: '' },
    stop: new AbortController().signal,
    abort: new AbortController().signal,
    random: () => 0.5,
    counters: newCounters(),
    routes: new RouteWatch(),
    arrived: () => undefined,
  };
  try {
    await runIteration(flow, ctx, 0, 0);
  } finally {
    await client.destroy();
  }
  return records;
}

/** [op, intendedAt, sentAt] of each exchange, in order. */
function times(records: readonly ExchangeRecord[]): [string, number, number][] {
  return records.map((r) => [r.op, r.intendedAt, r.sentAt]);
}

describe('a step that waits is due when its wait ends', () => {
  it('cancel after 500ms: due at 500 after a submit at 0, though the submit ended at 40 and the timer fired late', async () => {
    const r = await iterate('      - run: { input: {} }\n      - cancel: { after: 500ms }\n', {
      serviceMs: { run: 40, cancel: 7 },
      statuses: [],
    });
    expect(times(r)).toEqual([
      ['run', 0, 0],
      ['cancel', 500, 500 + LATE_MS],
    ]);
    // Latency from the intended start is the send's plus the late timer, not the 500 ms wait.
    expect(r.map((x) => x.endAt - x.intendedAt)).toEqual([40, LATE_MS + 7]);
  });

  it('cancel after a delay that ran out during the submit: due when the submit ended', async () => {
    const r = await iterate('      - run: { input: {} }\n      - cancel: { after: 10ms }\n', {
      serviceMs: { run: 40 },
      statuses: [],
    });
    expect(times(r)).toEqual([
      ['run', 0, 0],
      ['cancel', 40, 40],
    ]);
  });

  it('cancel after, behind a sleep: due at the later of the two ends', async () => {
    const shortSleep = await iterate(
      '      - run: { input: {} }\n      - sleep: 50ms\n      - cancel: { after: 500ms }\n',
      { serviceMs: { run: 40 }, statuses: [] },
    );
    expect(times(shortSleep).at(-1)).toEqual(['cancel', 500, 500 + LATE_MS]);
    const longSleep = await iterate(
      '      - run: { input: {} }\n      - sleep: 600ms\n      - cancel: { after: 500ms }\n',
      { serviceMs: { run: 40 }, statuses: [] },
    );
    expect(times(longSleep).at(-1)).toEqual(['cancel', 640, 640 + LATE_MS]);
  });

  it('cancel when a state is seen: due when the /status that saw it answered', async () => {
    const r = await iterate('      - run: { input: {} }\n      - cancel: { when: IN_PROGRESS }\n', {
      serviceMs: { run: 40, status: 5 },
      statuses: ['IN_QUEUE', 'IN_QUEUE', 'IN_PROGRESS'],
    });
    // The watch polls every 100 ms from each answer; each poll is due at its interval's end.
    expect(times(r)).toEqual([
      ['run', 0, 0],
      ['status', 40, 40],
      ['status', 145, 145 + LATE_MS],
      ['status', 280, 280 + LATE_MS],
      ['cancel', 315, 315],
    ]);
  });

  it("poll: each /status is due at its interval's end (backing off), not when the timer fired", async () => {
    const r = await iterate('      - run: { input: {} }\n      - poll: { interval: 200ms, backoff: 2 }\n', {
      serviceMs: { run: 40, status: 5 },
      statuses: ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED'],
    });
    expect(times(r)).toEqual([
      ['run', 0, 0],
      ['status', 40, 40],
      ['status', 245, 245 + LATE_MS],
      ['status', 680, 680 + LATE_MS],
    ]);
  });

  it("stream: each /stream after the first is due at its interval's end", async () => {
    const r = await iterate('      - run: { input: {} }\n      - stream: { interval: 100ms }\n', {
      serviceMs: { run: 40, stream: 5 },
      statuses: ['IN_PROGRESS', 'COMPLETED'],
      chunks: [1, 0],
    });
    expect(times(r)).toEqual([
      ['run', 0, 0],
      ['stream', 40, 40],
      ['stream', 145, 145 + LATE_MS],
    ]);
  });

  it('sleeps in a row: each begins where the one before it was due to end, however late its timer fired', async () => {
    const r = await iterate(
      '      - run: { input: {} }\n      - sleep: 100ms\n      - sleep: 200ms\n      - health: {}\n',
      {
        serviceMs: { run: 40 },
        statuses: [],
      },
    );
    expect(times(r)).toEqual([
      ['run', 0, 0],
      ['health', 340, 340 + LATE_MS],
    ]);
  });

  it('a sleep first in an iteration begun late: due at the arrival plus the sleep', async () => {
    const r = await iterate(
      '      - sleep: 100ms\n      - health: {}\n',
      { serviceMs: {}, statuses: [] },
      { startAt: 50 },
    );
    expect(times(r)).toEqual([['health', 100, 100 + LATE_MS]]);
  });

  it("a 429's retry is due when its backoff ends as scheduled", async () => {
    const r = await iterate(
      '      - run: { input: {} }\n      - cancel: {}\n',
      { serviceMs: { run: 40, cancel: 5 }, statuses: [], throttleCancels: 1 },
      { retry429: { attempts: 2, baseMs: 100, maxMs: 5000 } },
    );
    expect(times(r)).toEqual([
      ['run', 0, 0],
      ['cancel', 40, 40],
      ['cancel', 1045, 1045 + LATE_MS],
    ]);
  });
});
