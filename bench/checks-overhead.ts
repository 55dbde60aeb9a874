/*
 * Checks on vs off, side by side in one process: the same flow (run, then status twice) driven
 * flat out by closed-loop virtual users against a fresh emulator each time (a child process on the
 * other core), so the generator's single core is the bottleneck and requests/s is its throughput.
 *
 *   taskset -c 0 npx tsx bench/checks-overhead.ts [vus=64] [seconds=4] [pairs=8]
 *
 * A shared two-core machine drifts by more than the checks cost, so the sides alternate in short
 * pairs (off then on, then on then off, ...) and the figure is the median of the pairs' ratios:
 * each ratio compares two runs seconds apart, under the same neighbours.
 */
import { Checker } from '../src/check/checker.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { JobstormRecord } from '../src/core/record.js';
import { TurnBatch } from '../src/core/turn-batch.js';
import { RunMetrics } from '../src/metrics/run-metrics.js';
import { runScenario } from '../src/runner/runner.js';
import { parseScenario } from '../src/scenario/scenario-parser.js';

const vus = Number(process.argv[2] ?? 64);
const seconds = Number(process.argv[3] ?? 4);
const pairs = Number(process.argv[4] ?? 8);

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

interface Side {
  label: string;
  requests: number;
  achieved: number;
  cpuUsPerRequest: number;
  violations: number;
  latenessP99: number;
  /** The checker's finish: the rate-limit windows of the last 35 s are judged at the end. */
  finishMs: number;
}

/**
 * The emulator runs in a child process (on the other core when taskset is there), so that
 * process.cpuUsage() here counts the generator alone. `no-429` lets the load through the spec's
 * rate limits; the checks rightly report ratelimit.not-enforced for it.
 */
async function startEmulatorProcess(): Promise<{ url: string; apiKey: string; close(): Promise<void> }> {
  const args = ['dist/src/cli/main.js', 'emulate', '--port', '0', '--fault', 'no-429', '--workers-min', '100', '--workers-max', '100', '--api-key', 'bench-key'];
  const child: ChildProcess = spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
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

async function side(checks: boolean): Promise<Side> {
  const emu = await startEmulatorProcess();
  const metrics = new RunMetrics();
  let checker: Checker | undefined;
  let requests = 0;
  // As `jobstorm run` does: the checker takes each turn's records together.
  const toCheck = new TurnBatch<JobstormRecord>((records) => {
    for (const x of records) checker?.add(x);
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const outcome = await runScenario({
    scenario,
    target: { baseUrl: emu.url, apiKey: emu.apiKey, ownsEndpoint: true, requestsPerWorker: 10 },
    runId: 'bench',
    onRecord: (r) => {
      if (r.type === 'exchange') requests++;
      metrics.add(r);
      if (!checks) return;
      if (r.type === 'run') checker = new Checker(r, { onViolation: (v) => metrics.addViolation(v) });
      else if (checker) toCheck.push(r);
    },
  });
  const tf = performance.now();
  toCheck.flush();
  const result = checker?.finish();
  const finishMs = performance.now() - tf;
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await emu.close();
  return {
    label: checks ? 'checks on ' : 'checks off',
    requests,
    achieved: requests / elapsed,
    cpuUsPerRequest: (cpu.user + cpu.system) / requests,
    violations: result?.total ?? 0,
    latenessP99: outcome.latenessP99Ms,
    finishMs,
  };
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
};
const show = (r: Side): string =>
  `${r.label}: ${String(r.requests)} requests, ${r.achieved.toFixed(0)} req/s, ${r.cpuUsPerRequest.toFixed(1)} µs CPU/request${r.violations ? `, violations ${String(r.violations)}` : ''}${r.finishMs ? `, finish ${r.finishMs.toFixed(0)} ms` : ''}`;

const rateRatios: number[] = [];
const cpuRatios: number[] = [];
for (let pair = 0; pair < pairs; pair++) {
  const order = pair % 2 === 0 ? [false, true] : [true, false];
  const got: Side[] = [];
  for (const checks of order) got.push(await side(checks));
  const off = got.find((r) => r.label.startsWith('checks off'));
  const on = got.find((r) => r.label.startsWith('checks on'));
  if (!off || !on) throw new Error('a pair lacks a side');
  rateRatios.push(on.achieved / off.achieved);
  cpuRatios.push(off.cpuUsPerRequest / on.cpuUsPerRequest);
  process.stdout.write(`pair ${String(pair + 1)}: ${show(off)}\n        ${show(on)}\n        ratio ${((on.achieved / off.achieved) * 100).toFixed(1)}%\n`);
}
process.stdout.write(
  `flow-mode throughput with checks, median of ${String(pairs)} pairs: ${(median(rateRatios) * 100).toFixed(1)}% of checks off (goal ≥ 90%); ` +
    `by CPU per request ${(median(cpuRatios) * 100).toFixed(1)}%\n`,
);
