/**
 * Blast mode against autocannon itself, side by side in one run (issue 4, "Speed": blast mode
 * ≥ 0.9× autocannon's own requests/s on /health). Same bare server, same connections, same
 * duration; each round runs both, and which goes first alternates (the second run of a pair tends
 * to be faster), so drift in the machine hits both alike. Our side builds a record per response
 * and hands it to a sink, as a run would.
 *
 *   npx tsx bench/blast-health.ts [seconds=10] [rounds=4] [connections=64]
 */
import autocannon from 'autocannon';
import { blast } from '../src/blast/index.js';
import type { ExchangeRecord } from '../src/core/record.js';
import { cpuMicros, median, pinSelf, startBenchServer } from './client-bench-setup.js';

const seconds = Number(process.argv[2] ?? 10);
const rounds = Number(process.argv[3] ?? 4);
const connections = Number(process.argv[4] ?? 64);

interface Sample {
  rps: number;
  cpuUs: number;
}

async function plain(url: string, duration: number): Promise<Sample> {
  const cpu0 = cpuMicros();
  const r = await autocannon({ url: `${url}/v2/ep/health`, connections, duration });
  const done = r.requests.total;
  return { rps: done / r.duration, cpuUs: (cpuMicros() - cpu0) / done };
}

async function ours(url: string, duration: number): Promise<Sample> {
  let kept = 0;
  let lastStatus = 0;
  // A sink that touches each record, so none is optimized away.
  const onRecord = (r: ExchangeRecord): void => {
    kept++;
    lastStatus = r.status ?? 0;
  };
  const cpu0 = cpuMicros();
  const r = await blast({
    url: `${url}/v2/ep`,
    op: 'health',
    method: 'GET',
    path: '/health',
    connections,
    durationMs: duration * 1000,
    onRecord,
  });
  if (kept !== r.responses + r.errors || lastStatus !== 200)
    throw new Error(`sink saw ${String(kept)} records`);
  return { rps: r.responses / (r.elapsedMs / 1000), cpuUs: (cpuMicros() - cpu0) / r.responses };
}

const pinned = pinSelf();
const server = await startBenchServer();
try {
  await plain(server.url, 2);
  await ours(server.url, 2);
  const a: Sample[] = [];
  const b: Sample[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      a.push(await plain(server.url, seconds));
      b.push(await ours(server.url, seconds));
    } else {
      b.push(await ours(server.url, seconds));
      a.push(await plain(server.url, seconds));
    }
    console.log(
      `round ${String(i + 1)}: autocannon ${a[i]?.rps.toFixed(0) ?? ''} req/s · blast ${b[i]?.rps.toFixed(0) ?? ''} req/s`,
    );
  }
  const ra = median(a.map((s) => s.rps));
  const rb = median(b.map((s) => s.rps));
  console.log(
    `pinned: ${pinned && server.pinned ? 'generator CPU 0, server CPU 1' : 'no (taskset unavailable)'}; ${String(connections)} connections, ${String(seconds)} s × ${String(rounds)} rounds, medians`,
  );
  console.log(`autocannon: ${ra.toFixed(0)} req/s, ${median(a.map((s) => s.cpuUs)).toFixed(1)} µs CPU/req`);
  console.log(
    `blast():    ${rb.toFixed(0)} req/s, ${median(b.map((s) => s.cpuUs)).toFixed(1)} µs CPU/req (records included)`,
  );
  // The server's core is the ceiling for both (perf-anchors.md), so req/s swing with steal time;
  // CPU per request is the generator's own cost and the steadier comparison.
  const ca = median(a.map((s) => s.cpuUs));
  const cb = median(b.map((s) => s.cpuUs));
  const paired = median(a.map((s, i) => (b[i]?.rps ?? 0) / s.rps));
  console.log(
    `ratio blast/autocannon: ${(rb / ra).toFixed(3)} req/s (medians), ${paired.toFixed(3)} (median of per-round pairs), ${(ca / cb).toFixed(3)} per CPU-second (goal ≥ 0.9)`,
  );
} finally {
  server.stop();
}
