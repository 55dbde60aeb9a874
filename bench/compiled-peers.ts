/**
 * The compiled peers of bench/engine-vs-peers.ts (issue 52): `hey` (Go) and `wrk` (C), both Debian
 * packages (`apt-get install hey wrk`), optional rows that are skipped when not installed. What each
 * is given and how its output is read lives here; the bench times them as it times every row.
 *
 * hey paces each of its workers (`-q` requests/s a worker, `-c` workers), a closed loop per worker:
 * a late answer delays that worker's next request, so its p99 is from the send, not from an
 * intended start, and it cannot chain a /status to the id a /run answered. The run + status flow
 * is therefore two hey processes side by side, half the connections each: POST /run at the
 * arrival rate and GET /status of one id at the same rate, the same requests on the wire at the
 * same rate as jobstorm's and the Pool's (the bare server answers any id). wrk has no rate at all:
 * it saturates its connections (one thread, 64 connections; a Lua script alternates the two
 * requests for run + status), so its row is CPU per request at its own top rate, for scale.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchFlow } from './runner-bench-setup.js';

export const HEY = process.env.HEY ?? '/usr/bin/hey';
export const WRK = process.env.WRK ?? '/usr/bin/wrk';

const AUTH = 'Authorization: Bearer bench-key';
const BODY = JSON.stringify({ input: { prompt: 'a short prompt for the bench', max_tokens: 16 } });
/** jobstorm's and the Pool's connections. */
const CONNECTIONS = 64;

/** One peer command: a shell line (run under `sh -c`) and the files its reports land in. */
export interface PeerCommand {
  shell: string;
  /** hey's reports, one per process: /run's first. */
  outputs: string[];
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** hey at `rate` arrivals/s for `seconds`: one process (run only) or two side by side. */
export function heyCommand(dir: string, origin: string, rate: number, seconds: number, flow: BenchFlow): PeerCommand {
  const procs = flow === 'run' ? 1 : 2;
  const c = CONNECTIONS / procs;
  const common = ['-z', `${String(seconds)}s`, '-c', String(c), '-q', String(rate / c), '-H', quote(AUTH)];
  const run = [HEY, ...common, '-m', 'POST', '-T', 'application/json', '-d', quote(BODY), `${origin}/v2/ep/run`];
  const status = [HEY, ...common, `${origin}/v2/ep/status/job-1`];
  const outputs = [join(dir, 'hey-run.txt'), join(dir, 'hey-status.txt')].slice(0, procs);
  const lines = [run, status].slice(0, procs).map((cmd, i) => `${cmd.join(' ')} > ${outputs[i] ?? ''}`);
  return { shell: `${lines.join(' & ')}; wait`, outputs };
}

/** What one hey report says. */
export interface HeyReport {
  rps: number;
  /** Answers by status code and errors: every request it sent. */
  sent: number;
  /** Non-2xx answers and transport errors. */
  errors: number;
  p99Ms: number | undefined;
}

export function parseHey(text: string): HeyReport {
  const rps = Number(/Requests\/sec:\s*([\d.]+)/.exec(text)?.[1] ?? Number.NaN);
  let sent = 0;
  let errors = 0;
  for (const m of text.matchAll(/\[(\d+)\]\s+(\d+) (responses|errors)/g)) {
    const n = Number(m[2]);
    sent += n;
    if (m[3] === 'errors' || !(m[1] ?? '').startsWith('2')) errors += n;
  }
  const p99 = /99% in ([\d.]+) secs/.exec(text)?.[1];
  if (!Number.isFinite(rps)) throw new Error(`hey printed no Requests/sec:\n${text.slice(-1500)}`);
  return { rps, sent, errors, p99Ms: p99 === undefined ? undefined : Number(p99) * 1000 };
}

/** wrk for `seconds` on one thread and 64 connections, as fast as the server answers. */
export async function wrkCommand(dir: string, origin: string, seconds: number, flow: BenchFlow): Promise<PeerCommand> {
  const script = join(dir, `wrk-${flow}.lua`);
  const headers = `{["Authorization"]="Bearer bench-key", ["Content-Type"]="application/json"}`;
  // The requests are formatted once, in `init` (at the script's top level wrk has no Host header
  // yet, and the server answers 400 without one): what wrk sends per request is then a string it
  // already has.
  await writeFile(
    script,
    `local run, status
local n = 0
init = function(args)
  run = wrk.format("POST", "/v2/ep/run", ${headers}, ${JSON.stringify(BODY)})
  status = wrk.format("GET", "/v2/ep/status/job-1", {["Authorization"]="Bearer bench-key"})
end
request = function()
  n = n + 1
  if ${flow === 'run' ? 'true' : 'n % 2 == 1'} then return run end
  return status
end
`,
  );
  const out = join(dir, 'wrk.txt');
  return {
    shell: `${WRK} -t1 -c${String(CONNECTIONS)} -d${String(seconds)}s --latency -s ${script} ${origin} > ${out}`,
    outputs: [out],
  };
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };

/** What wrk's report says. */
export interface WrkReport {
  rps: number;
  sent: number;
  errors: number;
  p99Ms: number | undefined;
}

export function parseWrk(text: string): WrkReport {
  const rps = Number(/Requests\/sec:\s*([\d.]+)/.exec(text)?.[1] ?? Number.NaN);
  const sent = Number(/(\d+) requests in/.exec(text)?.[1] ?? Number.NaN);
  if (!Number.isFinite(rps) || !Number.isFinite(sent)) throw new Error(`wrk printed no totals:\n${text.slice(-1500)}`);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = socket ? socket.slice(1).reduce((n, x) => n + Number(x), 0) : 0;
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)\b/.exec(text);
  return {
    rps,
    sent,
    errors: non2xx + socketErrors,
    p99Ms: p99 ? Number(p99[1]) * (UNIT_MS[p99[2] ?? 'ms'] ?? 1) : undefined,
  };
}
