import type { Client, Options, Result } from 'autocannon';
import { systemClock } from '../core/clock.js';
import type { BlastOptions, BlastResult } from './blast-options.js';
import { BlastRecorder, ConnectionState, type ParsedHead } from './blast-recorder.js';

/** How long before the end of a rated run its connections close (see `end` below). */
const RATE_END_MARGIN_MS = 50;

/**
 * Saturates one operation with autocannon (rate-limit probes, raw throughput of /health or
 * /status) and turns each of its responses into the same ExchangeRecord the client writes, so
 * checks and metrics need not know which engine sent it.
 */
export async function blast(o: BlastOptions): Promise<BlastResult> {
  if (!(o.connections >= 1)) throw new RangeError('connections must be at least 1');
  if (o.amount === undefined && !(o.durationMs !== undefined && o.durationMs > 0)) {
    throw new RangeError('blast needs durationMs or amount');
  }
  const clock = o.clock ?? systemClock;
  let seq = 0;
  const recorder = new BlastRecorder(o, clock, o.nextSeq ?? (() => ++seq), o.parse ?? 'non-2xx');
  const clients: Client[] = [];
  const startedAt = clock.now();
  let endedAt: number | undefined;
  const durationMs = o.durationMs ?? 0;

  // Loaded here, not at start-up: only blast steps and probes need it.
  const { default: autocannon } = await import('autocannon');
  const totals = await new Promise<Result>((resolve, reject) => {
    const options = autocannonOptions(o, recorder, (client) => clients.push(client));
    const instance = autocannon(options, (err: unknown, result: Result) => {
      o.signal?.removeEventListener('abort', end);
      if (endTimer) clearTimeout(endTimer);
      recorder.flush();
      if (err) reject(err instanceof Error ? err : new Error('autocannon failed to start', { cause: err }));
      else resolve(result);
    });
    // autocannon only notices its end on a sample tick, and a connection whose per-second rate
    // budget refills first keeps sending until then. With a rate we end the connections ourselves
    // shortly before the last second runs out, so a refilled budget never leaks past the end
    // (requests still in flight are dropped, as autocannon drops them).
    const end = (): void => {
      endedAt ??= clock.now();
      // Client#destroy exists (autocannon calls it itself) but @types/autocannon leaves it out.
      for (const c of clients) (c as Client & { destroy(): void }).destroy();
      instance.stop();
    };
    instance.on('reqError', (err: unknown) => recorder.error(err));
    const margin = o.rate === undefined ? 0 : Math.min(RATE_END_MARGIN_MS, durationMs / 10);
    const endTimer = o.amount === undefined ? setTimeout(end, Math.max(0, durationMs - margin)) : undefined;
    if (o.signal?.aborted) end();
    else o.signal?.addEventListener('abort', end, { once: true });
  });

  // A timed run lasts as long as asked (a rated one ends its connections a margin early, but the
  // last second's budget was spent); a counted or aborted one, until its last answer or abort.
  const timed = o.amount === undefined && !o.signal?.aborted;
  const elapsedMs = Math.max(timed ? durationMs : (endedAt ?? recorder.lastAt) - startedAt, 1);
  return {
    responses: recorder.responses,
    errors: recorder.errors,
    byStatus: recorder.byStatus,
    elapsedMs,
    achievedRate: recorder.responses / (elapsedMs / 1000),
    totals,
  };
}

function autocannonOptions(o: BlastOptions, recorder: BlastRecorder, onClient: (c: Client) => void): Options {
  const base = new URL(o.url);
  if (base.username || base.password)
    throw new TypeError('blast URL must not carry credentials; put the key in headers');
  const setupClient = (client: Client): void => {
    onClient(client);
    o.setupClient?.(client);
    const conn = new ConnectionState();
    // The typings call this argument headers; autocannon passes the parser's whole head.
    client.on('headers', (head: unknown) => recorder.head(conn, head as ParsedHead));
    client.on('response', (status: number, bytes: number, responseTime: number) => {
      recorder.response(conn, status, bytes, responseTime);
    });
  };
  const durationMs = o.durationMs ?? 0;
  const headers = o.headers ?? {};
  return {
    url: base.origin,
    connections: o.amount === undefined ? o.connections : Math.min(o.connections, o.amount),
    pipelining: o.pipelining ?? 1,
    timeout: Math.max(1, (o.timeoutMs ?? 10_000) / 1000),
    method: o.method,
    headers,
    requests: [
      {
        method: o.method,
        path: base.pathname.replace(/\/+$/, '') + o.path,
        headers,
        body: o.body,
      },
    ],
    setupClient,
    ...(o.parse === 'never' ? {} : { verifyBody: recorder.body }),
    // autocannon notices the end on its sample tick: whole seconds end on the one-second tick,
    // anything else needs a finer one so the run does not idle until the next second.
    sampleInt: o.amount === undefined && durationMs % 1000 === 0 ? 1000 : 50,
    ...(o.amount === undefined ? { duration: durationMs / 1000 } : { amount: o.amount }),
    // autocannon spreads its options over its defaults (overallRate: 0): left out, not undefined.
    ...(o.rate === undefined ? {} : { overallRate: o.rate }),
  };
}
