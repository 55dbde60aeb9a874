/*
 * Checks on vs off, side by side in one process: the same flow (run, then status twice) driven
 * flat out by closed-loop virtual users against the same emulator (a child process on the other
 * core), so the generator's single core is the bottleneck and requests/s is its throughput.
 *
 *   taskset -c 0 npx tsx bench/checks-overhead.ts [vus=64] [seconds=10]
 */
import { Checker } from '../src/check/checker.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { RunMetrics } from '../src/metrics/run-metrics.js';
import { runScenario } from '../src/runner/runner.js';
import { parseScenario } from '../src/scenario/scenario-parser.js';

const vus = Number(process.argv[2] ?? 64);
const seconds = Number(process.argv[3] ?? 10);

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
      else checker?.add(r);
    },
  });
  const result = checker?.finish();
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
  };
}

const results: Side[] = [];
// Alternating pairs, medians: a shared two-core machine drifts more than the checks cost.
for (let pair = 0; pair < 3; pair++) for (const checks of [false, true]) results.push(await side(checks));
for (const r of results) {
  process.stdout.write(`${r.label}: ${String(r.requests)} requests, ${r.achieved.toFixed(0)} req/s over the whole run, ${r.cpuUsPerRequest.toFixed(1)} µs CPU/request, lateness p99 ${r.latenessP99.toFixed(1)} ms, violations ${String(r.violations)}\n`);
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const off = median(results.filter((r) => r.label.startsWith('checks off')).map((r) => r.cpuUsPerRequest));
const on = median(results.filter((r) => r.label.startsWith('checks on')).map((r) => r.cpuUsPerRequest));
const offRate = median(results.filter((r) => r.label.startsWith('checks off')).map((r) => r.achieved));
const onRate = median(results.filter((r) => r.label.startsWith('checks on')).map((r) => r.achieved));
process.stdout.write(`flow-mode throughput with checks: ${onRate.toFixed(0)} req/s vs ${offRate.toFixed(0)} req/s without = ${((onRate / offRate) * 100).toFixed(1)}% (goal ≥ 90%); CPU per request ${on.toFixed(1)} vs ${off.toFixed(1)} µs\n`);
