/**
 * The client in flow mode: open-model arrivals at a fixed rate, each a `run` then a `status` of
 * the job it got (issue 4, "Speed": ≥ 5,000 HTTP requests/s on one core). Reports achieved
 * rates, how late requests left against their intended start, and CPU per request; then the same
 * flows on a bare undici Pool (request, text, JSON.parse, nothing else), so the client's own cost
 * shows as the difference, whatever else the machine is doing.
 *
 *   npx tsx bench/client-throughput.ts [requestsPerSecond=5000] [seconds=10] [connections=64]
 */
import { Pool } from 'undici';
import { createJobClient } from '../src/client/index.js';
import { systemClock } from '../src/core/clock.js';
import type { ExchangeRecord } from '../src/core/record.js';
import { cpuMicros, percentile, pinSelf, startBenchServer } from './client-bench-setup.js';

const targetRps = Number(process.argv[2] ?? 5000);
const seconds = Number(process.argv[3] ?? 10);
const connections = Number(process.argv[4] ?? 64);
const maxInFlight = 2000;
const BODY = { input: { prompt: 'a short prompt for the bench', max_tokens: 16 } };

interface Stats {
  sent: number;
  done: number;
  errors: number;
  dropped: number;
  lateness: number[];
  latency: number[];
}

type Flow = (intendedAt: number) => Promise<void>;

interface Engine {
  flow: Flow;
  close: () => Promise<void>;
}

function ourClient(url: string, stats: Stats): Engine {
  const onRecord = (r: ExchangeRecord): void => {
    stats.done++;
    if (r.error) stats.errors++;
    // Only arrivals have a schedule; a status follows its run at once.
    if (r.step === 'run') stats.lateness.push(r.sentAt - r.intendedAt);
    stats.latency.push(r.endAt - r.intendedAt);
  };
  const client = createJobClient({
    baseUrl: `${url}/v2/ep`,
    apiKey: 'bench-key',
    auth: 'bearer',
    connections,
    timeoutMs: 10_000,
    clock: systemClock,
    onRecord,
  });
  return {
    flow: async (intendedAt) => {
      stats.sent++;
      const run = await client.run(BODY, { intendedAt, flow: 'bench', step: 'run' });
      if (run.jobId !== undefined) {
        stats.sent++;
        await client.status(run.jobId, {}, { flow: 'bench', step: 'status' });
      }
    },
    close: () => client.close(),
  };
}

/** The floor: what undici alone costs for the same exchanges. */
function barePool(url: string, stats: Stats): Engine {
  const pool = new Pool(url, { connections, pipelining: 1 });
  const headers = { authorization: 'Bearer bench-key', 'content-type': 'application/json' };
  const call = async (
    method: 'GET' | 'POST',
    path: string,
    body: string | null,
    intendedAt: number,
  ): Promise<unknown> => {
    stats.sent++;
    const sentAt = performance.now();
    const res = await pool.request({ method, path, headers, body });
    const parsed: unknown = JSON.parse(await res.body.text());
    stats.done++;
    if (method === 'POST') stats.lateness.push(sentAt - intendedAt);
    stats.latency.push(performance.now() - intendedAt);
    return parsed;
  };
  return {
    flow: async (intendedAt) => {
      const run = (await call('POST', '/v2/ep/run', JSON.stringify(BODY), intendedAt)) as { id?: string };
      if (run.id !== undefined) await call('GET', `/v2/ep/status/${run.id}`, null, performance.now());
    },
    close: () => pool.close(),
  };
}

async function measure(
  url: string,
  rps: number,
  durationS: number,
  make: (url: string, stats: Stats) => Engine = ourClient,
): Promise<{ stats: Stats; elapsedS: number; cpuUs: number }> {
  const stats: Stats = { sent: 0, done: 0, errors: 0, dropped: 0, lateness: [], latency: [] };
  const engine = make(url, stats);
  const flows = Math.round((rps / 2) * durationS);
  const spacing = 1000 / (rps / 2);
  let inFlight = 0;
  let started = 0;

  const flow = async (intendedAt: number): Promise<void> => {
    inFlight++;
    await engine.flow(intendedAt);
    inFlight--;
  };

  const cpu0 = cpuMicros();
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    // A 1 ms tick releases every arrival that has fallen due; none is delayed silently.
    const tick = (): void => {
      const now = performance.now();
      while (started < flows && t0 + started * spacing <= now) {
        const intendedAt = t0 + started * spacing;
        started++;
        if (inFlight >= maxInFlight) stats.dropped++;
        else void flow(intendedAt);
      }
      if (started < flows) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  const elapsedS = (performance.now() - t0) / 1000;
  const cpuUs = cpuMicros() - cpu0;
  await engine.close();
  return { stats, elapsedS, cpuUs };
}

const pinned = pinSelf();
const server = await startBenchServer();
try {
  await measure(server.url, Math.min(targetRps, 2000), 2);
  const { stats, elapsedS, cpuUs } = await measure(server.url, targetRps, seconds);
  console.log(
    `pinned: ${pinned && server.pinned ? 'generator CPU 0, server CPU 1' : 'no (taskset unavailable)'}; ${String(connections)} connections`,
  );
  console.log(
    `target ${String(targetRps)} req/s for ${String(seconds)} s (run → status flows at ${String(targetRps / 2)}/s)`,
  );
  console.log(
    `achieved: ${(stats.done / elapsedS).toFixed(0)} req/s completed (${String(stats.done)} in ${elapsedS.toFixed(2)} s), ${((stats.sent / (targetRps * seconds)) * 100).toFixed(2)}% of target sent, ${String(stats.dropped)} dropped, ${String(stats.errors)} errors`,
  );
  console.log(
    `lateness of arrivals (sent − intended): p50 ${percentile(stats.lateness, 50).toFixed(2)} ms, p99 ${percentile(stats.lateness, 99).toFixed(2)} ms`,
  );
  console.log(
    `latency from intended: p50 ${percentile(stats.latency, 50).toFixed(2)} ms, p99 ${percentile(stats.latency, 99).toFixed(2)} ms`,
  );
  console.log(
    `client CPU: ${(cpuUs / stats.done).toFixed(1)} µs/request, ${(cpuUs / 1e4 / elapsedS).toFixed(0)}% of one core`,
  );
  const bare = await measure(server.url, targetRps, seconds, barePool);
  const bareUs = bare.cpuUs / bare.stats.done;
  console.log(
    `bare undici Pool, same flows: ${(bare.stats.done / bare.elapsedS).toFixed(0)} req/s, ${bareUs.toFixed(1)} µs/request, lateness p99 ${percentile(bare.stats.lateness, 99).toFixed(2)} ms`,
  );
  console.log(`client's own cost over bare undici: ${(cpuUs / stats.done - bareUs).toFixed(1)} µs/request`);
} finally {
  server.stop();
}
