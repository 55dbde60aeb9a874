import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import type { ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import { WARMUP_FLOW, warmUp } from '../../src/runner/readiness.js';
import { WarmupSink } from '../../src/runner/warmup-sink.js';
import { parseScenario } from '../../src/scenario/index.js';

const scenario = parseScenario(
  `name: warm
phases: [{ duration: 1s, rate: 1 }]
flows: [{ name: f, steps: [{ run: { input: { a: 1 } } }, { status: {} }] }]
`,
  'warm.yaml',
);

/** Sends raw bytes in the pieces given, with a pause between them; resolves with all answered text. */
async function rawExchange(port: number, pieces: string[], answers: number): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let text = '';
  const done = new Promise<string>((resolve) => {
    socket.on('data', (b: Buffer) => {
      text += b.toString('latin1');
      if ((text.match(/HTTP\/1\.1 200/g) ?? []).length === answers) resolve(text);
    });
  });
  for (const piece of pieces) {
    socket.write(piece);
    // Real time: a real socket's pieces must reach the server as separate reads.
    await new Promise((r) => setTimeout(r, 5));
  }
  const out = await done;
  socket.destroy();
  return out;
}

describe('the warm-up before time 0', () => {
  it('runs /run then /status against the local sink, every exchange answered 200, none of them the run’s', async () => {
    const records: JobstormRecord[] = [];
    await warmUp(scenario, systemClock, 40, (r) => records.push(r));
    const exchanges = records.filter((r): r is ExchangeRecord => r.type === 'exchange');
    expect(exchanges).toHaveLength(80);
    expect(exchanges.filter((r) => r.op === 'run')).toHaveLength(40);
    expect(exchanges.filter((r) => r.op === 'status')).toHaveLength(40);
    for (const r of exchanges) {
      expect(r.flow).toBe(WARMUP_FLOW);
      expect(r.error).toBeUndefined();
      expect(r.status).toBe(200);
    }
    expect(exchanges.find((r) => r.op === 'status')?.body).toMatchObject({ status: 'COMPLETED' });
    expect(exchanges.find((r) => r.op === 'run')?.jobId).toBe('jobstorm-warmup');
  });

  it('no round trips, no sink: a slow run pays nothing', async () => {
    const records: JobstormRecord[] = [];
    await warmUp(scenario, systemClock, 0, (r) => records.push(r));
    expect(records).toEqual([]);
  });

  it('the sink answers a request whose head and body arrive in pieces, and two sent at once', async () => {
    const sink = await WarmupSink.open();
    try {
      const body = '{"input":{"a":1}}';
      const post = `POST /v2/warmup/run HTTP/1.1\r\nhost: x\r\nContent-Length: ${String(body.length)}\r\n\r\n`;
      const split = await rawExchange(
        sink.port,
        [post.slice(0, 20), post.slice(20), body.slice(0, 5), body.slice(5)],
        1,
      );
      expect(split).toContain('"status":"IN_QUEUE"');
      const get = 'GET /v2/warmup/status/x HTTP/1.1\r\nhost: x\r\n\r\n';
      const both = await rawExchange(sink.port, [post + body + get], 2);
      expect(both.indexOf('IN_QUEUE')).toBeLessThan(both.indexOf('COMPLETED'));
    } finally {
      await sink.close();
    }
  });
});
