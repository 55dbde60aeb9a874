/*
 * Checks on vs off in one run: the same flow (run, then status twice) driven flat out by
 * closed-loop virtual users against the emulator (a child process on the other core), so the
 * generator's single core is the bottleneck and requests/s is its throughput.
 *
 *   taskset -c 0 npx tsx bench/checks-overhead.ts [vus=64] [seconds=60] [sliceMs=2000]
 *
 * A shared two-core machine here changes speed by up to 2x within a minute, far more than the
 * checks cost, so separate runs cannot be compared. Instead one run alternates slices with checks
 * off and on: during an "on" slice every record goes to a checker (fresh for the slice, fed per
 * event-loop turn as `jobstorm run` does, finished at the slice's end, its finish counted in the
 * slice); during an "off" slice records go to the metrics only. Each on slice is compared with
 * the off slices on either side of it, and the figure is the median of those ratios.
 *
 * The emulator runs with `no-429`, so ratelimit.not-enforced fires, rightly. A slice's checker
 * sees only that slice's records, so health.jobs-mismatch fires too: /health counts the jobs sent
 * before the slice, which that checker never saw.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { RunRecord } from '../src/core/record.js';
import { JobFold } from '../src/fold/job-fold.js';
import { RunMetrics } from '../src/metrics/run-metrics.js';
import { CheckStage } from '../src/session/check-stage.js';
import { runScenario } from '../src/runner/runner.js';
import { parseScenario } from '../src/scenario/scenario-parser.js';
import { systemClock } from '../src/core/clock.js';

const vus = Number(process.argv[2] ?? 64);
const seconds = Number(process.argv[3] ?? 60);
const sliceMs = Number(process.argv[4] ?? 2000);

const scenario = parseScenario(
  `
name: checks-overhead
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
  checks: boolean;
  requests: number;
  ms: number;
  cpuUs: number;
  violations: string[];
  finishMs: number;
}

/**
 * The emulator runs in a child process (on the other core when taskset is there), so that
 * process.cpuUsage() here counts the generator alone. `no-429` lets the load through the spec's
 * rate limits; the checks rightly report ratelimit.not-enforced for it.
 */
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

const emu = await startEmulatorProcess();
// As in a run session: each record is folded once, and metrics and checks read that one fold.
const fold = new JobFold();
const metrics = new RunMetrics();
const slices: Slice[] = [];
let runRecord: RunRecord | undefined;
let checker: CheckStage | undefined;
let current: Slice = { checks: false, requests: 0, ms: 0, cpuUs: 0, violations: [], finishMs: 0 };
let sliceStart = performance.now();
let cpuStart = process.cpuUsage();

/** Closes the current slice (finishing its checker inside it) and opens the next, of the other kind. */
function nextSlice(): void {
  if (current.checks) {
    const t = performance.now();
    const result = checker?.finish();
    current.finishMs = performance.now() - t;
    current.violations = result?.violations.map((g) => `${g.id} ×${String(g.count)}`) ?? [];
    checker = undefined;
  }
  const now = performance.now();
  const cpu = process.cpuUsage(cpuStart);
  current.ms = now - sliceStart;
  current.cpuUs = cpu.user + cpu.system;
  slices.push(current);
  current = { checks: !current.checks, requests: 0, ms: 0, cpuUs: 0, violations: [], finishMs: 0 };
  if (current.checks && runRecord) {
    checker = new CheckStage({}, () => undefined);
    checker.add(runRecord, fold.add(runRecord));
  }
  sliceStart = performance.now();
  cpuStart = process.cpuUsage();
}

const timer = setInterval(nextSlice, sliceMs);
await runScenario({
  clock: systemClock,
  scenario,
  target: { baseUrl: emu.url, apiKey: emu.apiKey, ownsEndpoint: true, requestsPerWorker: 10 },
  runId: 'bench',
  onRecord: (r) => {
    if (r.type === 'run') runRecord = r;
    if (r.type === 'exchange') current.requests++;
    const jobs = fold.add(r);
    metrics.add(r, jobs);
    checker?.add(r, jobs);
  },
});
clearInterval(timer);
await emu.close();

// The first two slices warm up the runner and the checker's code; the last one is cut short.
const measured = slices.slice(2);
const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
};
const rate = (s: Slice): number => (s.requests * 1000) / s.ms;
const cpuPer = (s: Slice): number => s.cpuUs / s.requests;
const rateRatios: number[] = [];
const cpuRatios: number[] = [];
for (let i = 1; i < measured.length - 1; i++) {
  const on = measured[i];
  const before = measured[i - 1];
  const after = measured[i + 1];
  if (!on?.checks || !before || !after) continue;
  rateRatios.push(rate(on) / ((rate(before) + rate(after)) / 2));
  cpuRatios.push((cpuPer(before) + cpuPer(after)) / 2 / cpuPer(on));
}
for (const s of measured) {
  process.stdout.write(
    `${s.checks ? 'on ' : 'off'} ${String(s.requests).padStart(7)} requests in ${s.ms.toFixed(0)} ms = ${rate(s).toFixed(0).padStart(6)} req/s, ${cpuPer(s).toFixed(1)} µs CPU/request${s.checks ? `, finish ${s.finishMs.toFixed(0)} ms, violations: ${s.violations.join(', ') || 'none'}` : ''}\n`,
  );
}
process.stdout.write(
  `flow-mode throughput with checks, median of ${String(rateRatios.length)} on slices against the off slices around them: ${(median(rateRatios) * 100).toFixed(1)}% of checks off (goal ≥ 90%); by CPU per request ${(median(cpuRatios) * 100).toFixed(1)}%\n`,
);
