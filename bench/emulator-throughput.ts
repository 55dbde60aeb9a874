/**
 * Throughput of the emulator's HTTP layer against a bare node:http server answering the same
 * JSON, side by side in one run (issue 3 "Speed and memory": goal ≥ 50%).
 *
 *   npx tsx bench/emulator-throughput.ts [--duration 10] [--connections 64] [--rounds 3]
 *
 * Workload: autocannon, closed loop, POST /run then GET /status/<the id it returned>, repeated.
 * Each server runs in its own process pinned to CPU 1, the client (this process) to CPU 0, when
 * taskset exists (as in ../shared/reference/perf-anchors.md). The emulator runs with the no-429
 * fault: the spec's rate limit (1000 /run per 10 s) would otherwise refuse almost everything, and
 * the point is the cost of real work (validation, job creation, status rendering), not of a 429.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { startEmulator } from '../src/emulator/index.js';
import { TICKS_PER_SECOND, cpuTicks } from './process-cpu.js';

const KEY = 'bench-key';
const args = process.argv.slice(2);
const flag = (name: string, def: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};

async function serveBare(): Promise<void> {
  const status = JSON.stringify({
    id: `${randomUUID()}-u1`,
    status: 'COMPLETED',
    delayTime: 1,
    executionTime: 3,
    output: { prompt: 'hello' },
    workerId: 'w1',
  });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body =
        req.method === 'POST' ? JSON.stringify({ id: `${randomUUID()}-u1`, status: 'IN_QUEUE' }) : status;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  console.log(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}/v2/jobstorm`);
}

async function serveEmulator(): Promise<void> {
  const h = await startEmulator({ apiKey: KEY, faults: ['no-429'], workersMax: 50 });
  console.log(h.url);
}

const hasTaskset = spawnSync('taskset', ['-V']).status === 0;

function startServer(kind: 'bare' | 'emulator'): Promise<{ url: string; child: ChildProcess }> {
  const cmd = [
    process.execPath,
    ...process.execArgv,
    process.argv[1] ?? 'bench/emulator-throughput.ts',
    '--serve',
    kind,
  ];
  const child = hasTaskset
    ? spawn('taskset', ['-c', '1', ...cmd], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(cmd[0] ?? 'node', cmd.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once('line', (url) => resolve({ url, child }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${String(code)}`)));
  });
}

interface Figures {
  rps: number;
  /** Server CPU (user + system) per request, µs: the figure that does not depend on the client. */
  cpuUs: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

const TICK_US = 1e6 / TICKS_PER_SECOND;

async function drive(url: string, seconds: number, connections: number, pid?: number): Promise<Figures> {
  const before = pid === undefined ? undefined : cpuTicks(pid);
  const base = new URL(url);
  const r = await autocannon({
    url: base.origin,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    requests: [
      {
        method: 'POST',
        path: `${base.pathname}/run`,
        body: '{"input":{"prompt":"hello"}}',
        onResponse: (_status: number, body: string, context: object) => {
          const ctx = context as { id?: string };
          try {
            ctx.id = (JSON.parse(body) as { id?: string }).id;
          } catch {
            ctx.id = 'none';
          }
        },
      },
      {
        method: 'GET',
        setupRequest: (req, context: object) => ({
          ...req,
          path: `${base.pathname}/status/${(context as { id?: string }).id ?? 'none'}`,
        }),
      },
    ],
  });
  const after = pid === undefined ? undefined : cpuTicks(pid);
  const cpuUs =
    before === undefined || after === undefined
      ? NaN
      : ((after - before) * TICK_US) / Math.max(1, r.requests.total);
  return {
    rps: r.requests.average,
    cpuUs,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
  };
}

async function main(): Promise<void> {
  const serve = args.indexOf('--serve');
  if (serve >= 0) {
    await (args[serve + 1] === 'bare' ? serveBare() : serveEmulator());
    return;
  }
  const seconds = flag('duration', 10);
  const connections = flag('connections', 64);
  const rounds = flag('rounds', 3);
  if (hasTaskset) spawnSync('taskset', ['-cp', '0', String(process.pid)]);
  console.log(
    `autocannon, ${String(connections)} connections, ${String(seconds)} s per run, ${String(rounds)} round(s); POST /run + GET /status/<id>`,
  );
  console.log(
    hasTaskset
      ? 'pinned: servers on CPU 1, client on CPU 0 (taskset)'
      : 'taskset not available: server and client share the cores',
  );
  const results: Record<'bare' | 'emulator', Figures[]> = { bare: [], emulator: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const kind of ['bare', 'emulator'] as const) {
      const { url, child } = await startServer(kind);
      await drive(url, 2, connections); // warm-up: JIT and connection set-up out of the figures
      const f = await drive(url, seconds, connections, child.pid);
      child.kill();
      results[kind].push(f);
      console.log(
        `round ${String(round)} ${kind.padEnd(8)} ${f.rps.toFixed(0).padStart(7)} req/s  server ${f.cpuUs.toFixed(0)} µs CPU/req  p50 ${String(f.p50)} ms  p99 ${String(f.p99)} ms  errors ${String(f.errors)}  non-2xx ${String(f.non2xx)}`,
      );
    }
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
  };
  const bare = median(results.bare.map((f) => f.rps));
  const emu = median(results.emulator.map((f) => f.rps));
  const bareCpu = median(results.bare.map((f) => f.cpuUs));
  const emuCpu = median(results.emulator.map((f) => f.cpuUs));
  console.log(
    `\nmedian bare node:http ${bare.toFixed(0)} req/s · emulator ${emu.toFixed(0)} req/s · ratio ${((100 * emu) / bare).toFixed(1)}% (goal ≥ 50%)`,
  );
  console.log(
    `median server CPU per request: bare ${bareCpu.toFixed(0)} µs · emulator ${emuCpu.toFixed(0)} µs · capacity ratio (bare/emulator CPU) ${((100 * bareCpu) / emuCpu).toFixed(1)}%`,
  );
}

void main();
