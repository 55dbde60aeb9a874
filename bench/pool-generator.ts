/**
 * The floor that bench/engine-vs-peers.ts measures jobstorm against: a bare open-model generator
 * on an undici `Pool` (64 connections), with nothing but the flow. Arrival i is due at i/rate s;
 * a setTimeout loop sends every arrival that is due on each tick. An arrival is POST /v2/ep/run,
 * then GET /v2/ep/status/<id> as soon as the id is read. Latency is counted as jobstorm counts it:
 * /run from the arrival's intended time, /status from when it was due (the /run answer). After
 * the last arrival it waits at most 5 s for requests in flight, then prints one JSON line:
 * {startMs, requests, sent, errors, unfinished, seconds, latenessP99Ms, latencyP50Ms, latencyP99Ms, runP99Ms, statusP99Ms}.
 * With a warm-up (seconds, as jobstorm's `warmup`), arrivals intended before it are sent but not
 * counted: `requests`, `errors` and every figure are of the rest; `sent` is every request sent,
 * the warm-up's included (what the process's whole CPU is divided by). With the flow `run`, an
 * arrival is the POST /v2/ep/run alone (issue 52's run-only flow).
 *
 *   npx tsx bench/pool-generator.ts http://127.0.0.1:PORT [rate=1000] [seconds=10] [warmup=0] [flow=run-status|run]
 */
import { Pool } from 'undici';

const origin = process.argv[2] ?? 'http://127.0.0.1:8080';
const rate = Number(process.argv[3] ?? 1000);
const seconds = Number(process.argv[4] ?? 10);
const warmupMs = Number(process.argv[5] ?? 0) * 1000;
const runOnly = process.argv[6] === 'run';
const total = Math.floor(rate * seconds);
const pool = new Pool(origin, { connections: 64 });
const auth = { authorization: 'Bearer bench-key' };
const headers = { ...auth, 'content-type': 'application/json' };
const body = JSON.stringify({ input: { prompt: 'a short prompt for the bench', max_tokens: 16 } });
const lateness: number[] = [];
const runLatency: number[] = [];
const statusLatency: number[] = [];
let requests = 0;
/** Every request that got an answer or an error, the warm-up's included. */
let sent = 0;
let errors = 0;
let inFlight = 0;
let lastEnd = 0;
const t0 = performance.now();
/** Epoch ms at t0, for a caller that reads this process's CPU over the measured window. */
const startMs = Date.now();
const now = (): number => performance.now() - t0;

async function call(path: string, post: boolean, from: number, into: number[] | undefined): Promise<unknown> {
  try {
    const res = await pool.request(
      post ? { path, method: 'POST', headers, body } : { path, method: 'GET', headers: auth },
    );
    const text = await res.body.text();
    if (res.statusCode >= 200 && res.statusCode < 300) return JSON.parse(text) as unknown;
    if (into) errors++;
    return undefined;
  } catch {
    if (into) errors++;
    return undefined;
  } finally {
    sent++;
    lastEnd = now();
    if (into) {
      into.push(lastEnd - from);
      requests++;
    }
  }
}

async function arrival(intended: number): Promise<void> {
  // As jobstorm judges a warm-up: by the intended time, the arrival's and (for /status) its own.
  const measured = (t: number): boolean => t >= warmupMs;
  if (measured(intended)) lateness.push(now() - intended);
  inFlight++;
  const run = await call('/v2/ep/run', true, intended, measured(intended) ? runLatency : undefined);
  const id = typeof run === 'object' && run !== null && 'id' in run ? run.id : undefined;
  const due = now();
  if (runOnly) {
    if (typeof id !== 'string' && run !== undefined && measured(intended)) errors++;
  } else if (typeof id === 'string')
    await call(
      `/v2/ep/status/${encodeURIComponent(id)}`,
      false,
      due,
      measured(due) ? statusLatency : undefined,
    );
  else if (run !== undefined && measured(intended)) errors++;
  inFlight--;
}

await new Promise<void>((resolve) => {
  let next = 0;
  const tick = (): void => {
    const t = now();
    for (; next < total && (next * 1000) / rate <= t; next++) void arrival((next * 1000) / rate);
    if (next < total) setTimeout(tick, Math.max(0, (next * 1000) / rate - now()));
    else resolve();
  };
  tick();
});
const deadline = now() + 5000;
while (inFlight > 0 && now() < deadline) await new Promise((r) => setTimeout(r, 5));

function p(xs: number[], q: number): number {
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor((q / 100) * s.length))] ?? Number.NaN;
}
const all = [...runLatency, ...statusLatency];
const round = (x: number): number => Math.round(x * 1000) / 1000;
console.log(
  JSON.stringify({
    startMs,
    requests,
    sent,
    errors,
    unfinished: inFlight,
    seconds: round(lastEnd / 1000),
    latenessP99Ms: round(p(lateness, 99)),
    latencyP50Ms: round(p(all, 50)),
    latencyP99Ms: round(p(all, 99)),
    runP99Ms: round(p(runLatency, 99)),
    statusP99Ms: round(p(statusLatency, 99)),
  }),
);
await pool.destroy();
process.exit(0);
