/*
 * Live exports on vs off in one run, as bench/checks-overhead.ts does for the checks: the same flow
 * (run, then status twice) driven flat out by closed-loop virtual users against the emulator (a
 * child process on the other core), so the generator's core is the bottleneck and requests/s is
 * its throughput. Both outputs on: a real Prometheus (remote write) and an OTLP/HTTP sink that
 * reads and accepts each request, both on loopback and moved to the other core, so that what is
 * measured is the sending side only.
 *
 *   taskset -c 0 npx tsx bench/export-overhead.ts [vus=64] [seconds=24] [sliceMs=3000] [flushMs=1000]
 *
 * Slices alternate: during an "on" slice every record also goes to the run's LiveExports, which
 * flushes every flushMs (five times as often as the default 5 s; the last flush of the slice is
 * awaited inside it); during an "off" slice records go to the metrics only and nothing is sent.
 * One LiveExports serves the whole run, as in `jobstorm run`, so connections and code stay warm. Each on slice is compared with the
 * off slices on either side; the figure is the median of those ratios (goal: at most 5 % slower).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { LiveExports } from '../src/export/live-exports.js';
import { JobFold } from '../src/fold/job-fold.js';
import { RunMetrics } from '../src/metrics/run-metrics.js';
import { runScenario } from '../src/runner/runner.js';
import { parseScenario } from '../src/scenario/scenario-parser.js';
import { startPrometheus } from '../test/export/prometheus-server.js';
import { systemClock } from '../src/core/clock.js';

const vus = Number(process.argv[2] ?? 64);
const seconds = Number(process.argv[3] ?? 24);
const sliceMs = Number(process.argv[4] ?? 3000);
const flushMs = Number(process.argv[5] ?? 1000);

const scenario = parseScenario(
  `
name: export-overhead
target: { connections: 64, maxInFlight: 5000 }
phases: [{ duration: ${String(seconds)}s, vus: ${String(vus)} }]
flows:
  - name: flow
    steps:
      - run: { input: { sleep_ms: 1 } }
      - status: {}
      - status: {}
`,
  'bench.yaml',
  { env: {} },
);

interface Slice {
  exports: boolean;
  requests: number;
  ms: number;
  cpuUs: number;
  sent: number;
  dropped: number;
}

async function startEmulatorProcess(): Promise<{ url: string; apiKey: string; close(): Promise<void> }> {
  const args = [
    'dist/cli/main.js',
    'emulate',
    '--port',
    '0',
    '--fault',
    'no-429',
    '--workers-min',
    '100',
    '--workers-max',
    '100',
    '--api-key',
    'bench-key',
  ];
  const child: ChildProcess = spawn('taskset', ['-c', '1', process.execPath, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [url] = (await once(lines, 'line')) as [string];
  return {
    url: url.trim(),
    apiKey: 'bench-key',
    close: async () => {
      child.kill('SIGINT');
      await once(child, 'exit');
    },
  };
}

/** An OTLP/HTTP endpoint in its own process on the other core: reads each body, answers `{}`. */
async function startSink(): Promise<{ url: string; close(): Promise<void> }> {
  const code =
    "require('http').createServer((q,s)=>{q.resume();q.on('end',()=>s.writeHead(200,{'content-type':'application/json'}).end('{}'))}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})";
  const child: ChildProcess = spawn('taskset', ['-c', '1', process.execPath, '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [port] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), 'line')) as [
    string,
  ];
  return {
    url: `http://127.0.0.1:${port.trim()}/v1/metrics`,
    close: async () => {
      child.kill();
      await once(child, 'exit');
    },
  };
}

const emu = await startEmulatorProcess();
const prometheus = await startPrometheus();
spawn('taskset', ['-p', '-c', '1', String(prometheus.child.pid)], { stdio: 'ignore' });
const otlp = await startSink();
const targets = [
  { kind: 'prometheus' as const, url: prometheus.writeUrl, headers: {} },
  { kind: 'otlp' as const, url: otlp.url, headers: {} },
];
const metrics = new RunMetrics();
const fold = new JobFold();
const slices: Slice[] = [];
const live = new LiveExports({
  targets,
  intervalMs: flushMs,
  runId: 'bench',
  scenario: 'export-overhead',
  onWarning: (m) => process.stderr.write(`${m}\n`),
});
let flushing: NodeJS.Timeout | undefined;
let sending = false;
let sentBefore = 0;
let droppedBefore = 0;
let current: Slice = { exports: false, requests: 0, ms: 0, cpuUs: 0, sent: 0, dropped: 0 };
let sliceStart = performance.now();
let cpuStart = process.cpuUsage();
let closing = false;

/** Closes the current slice (its last flush awaited inside it) and opens the next, of the other kind. */
async function nextSlice(): Promise<void> {
  if (closing) return;
  closing = true;
  if (current.exports) {
    clearInterval(flushing);
    await live.flush();
    sending = false;
    const stats = live.stats();
    const sent = stats.reduce((a, s) => a + s.sent, 0);
    const dropped = stats.reduce((a, s) => a + s.dropped, 0);
    current.sent = sent - sentBefore;
    current.dropped = dropped - droppedBefore;
    sentBefore = sent;
    droppedBefore = dropped;
  }
  current.ms = performance.now() - sliceStart;
  const cpu = process.cpuUsage(cpuStart);
  current.cpuUs = cpu.user + cpu.system;
  slices.push(current);
  current = { exports: !current.exports, requests: 0, ms: 0, cpuUs: 0, sent: 0, dropped: 0 };
  if (current.exports) {
    sending = true;
    flushing = setInterval(() => void live.flush(), flushMs);
  }
  sliceStart = performance.now();
  cpuStart = process.cpuUsage();
  closing = false;
}

const timer = setInterval(() => void nextSlice(), sliceMs);
await runScenario({
  clock: systemClock,
  scenario,
  target: { baseUrl: emu.url, apiKey: emu.apiKey, ownsEndpoint: true, requestsPerWorker: 10 },
  runId: 'bench',
  onRecord: (r) => {
    if (r.type === 'exchange') current.requests++;
    const jobs = fold.add(r);
    metrics.add(r, jobs);
    if (sending) live.add(r, jobs);
  },
});
clearInterval(timer);
clearInterval(flushing);
await live.stop();
await emu.close();
await prometheus.kill();
await otlp.close();

// The first two slices warm up; the last one is cut short.
const measured = slices.slice(2);
const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
};
const rate = (s: Slice): number => (s.requests * 1000) / s.ms;
const cpuPer = (s: Slice): number => s.cpuUs / s.requests;
const ratios: number[] = [];
const cpuRatios: number[] = [];
for (let i = 1; i < measured.length - 1; i++) {
  const on = measured[i];
  const before = measured[i - 1];
  const after = measured[i + 1];
  if (!on?.exports || !before || !after) continue;
  ratios.push(rate(on) / ((rate(before) + rate(after)) / 2));
  cpuRatios.push((cpuPer(before) + cpuPer(after)) / 2 / cpuPer(on));
}
for (const s of measured) {
  process.stdout.write(
    `${s.exports ? 'on ' : 'off'} ${String(s.requests).padStart(7)} requests in ${s.ms.toFixed(0)} ms = ${rate(s).toFixed(0).padStart(6)} req/s, ${cpuPer(s).toFixed(1)} µs CPU/request${s.exports ? `, flushes sent ${String(s.sent)}, dropped ${String(s.dropped)}` : ''}\n`,
  );
}
process.stdout.write(
  `flow-mode throughput with both exports on, median of ${String(ratios.length)} on slices against the off slices around them: ${(median(ratios) * 100).toFixed(1)}% of exports off (goal ≥ 95%); by CPU per request ${(median(cpuRatios) * 100).toFixed(1)}%\n`,
);
