/**
 * Shared set-up of the runner benches: the flow server in a child process pinned to CPU 1 (when
 * taskset is there), the scenario of issue 4's "flow mode" (`run`, then `poll` until final), and
 * a runner with sinks as `jobstorm run` would attach them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Checker } from '../src/check/checker.js';
import { JobFold } from '../src/fold/job-fold.js';
import type { ExchangeRecord, JobstormRecord } from '../src/core/record.js';
import { RunMetrics } from '../src/metrics/run-metrics.js';
import type { RunOutcome } from '../src/runner/run-options.js';
import { runScenario } from '../src/runner/runner.js';
import { parseScenario } from '../src/scenario/scenario-parser.js';
import type { Scenario } from '../src/scenario/scenario.js';
import { cpuMicros } from './client-bench-setup.js';
import { systemClock } from '../src/core/clock.js';

export {
  cpuMicros,
  hostTicks,
  median,
  percentile,
  pinEventLoop,
  pinSelf,
  runQueueWaitMs,
  stealShare,
} from './client-bench-setup.js';

export const canPin = existsSync('/usr/bin/taskset') && availableParallelism() >= 2;

export interface FlowServer {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  pid: number;
  stop(): void;
}

export async function startFlowServer(cpu = 1): Promise<FlowServer> {
  const script = fileURLToPath(new URL('./runner-bare-server.ts', import.meta.url));
  const args = ['--import', 'tsx', script];
  const child: ChildProcess = canPin
    ? spawn('taskset', ['-c', String(cpu), process.execPath, ...args], {
        stdio: ['ignore', 'pipe', 'inherit'],
      })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  return { origin: `http://127.0.0.1:${port}`, pid: child.pid ?? 0, stop: () => child.kill('SIGTERM') };
}

/** The engine benches' flows: `run` then one `status` (issue 17), or `run` alone (issue 52). */
export type BenchFlow = 'run-status' | 'run';

/** Issue 17's flow as a scenario file: POST /run, then one GET /status, at `rate` arrivals/s. */
export function runStatusScenarioYaml(
  name: string,
  rate: number,
  seconds: number,
  warmupSeconds = 0,
  flow: BenchFlow = 'run-status',
): string {
  return `name: ${name}
target: { connections: 64, maxInFlight: 20000, timeout: 10s }
warmup: ${String(warmupSeconds)}s
phases: [{ duration: ${String(seconds)}s, rate: ${String(rate)} }]
flows:
  - name: ${flow}
    steps:
      - run: { input: { prompt: "a short prompt for the bench", max_tokens: 16 } }
${flow === 'run-status' ? '      - status: {}\n' : ''}`;
}

/** Issue 4's flow: `run`, then `poll` until final (the server finishes a job on its 2nd poll). */
export function flowScenario(
  arrivalsPerSecond: number,
  seconds: number,
  opts: { pollIntervalMs?: number; connections?: number } = {},
): Scenario {
  return parseScenario(
    `name: bench-flow
target: { connections: ${String(opts.connections ?? 64)}, maxInFlight: 20000, timeout: 10s }
phases:
  - { duration: ${String(seconds * 1000)}ms, rate: ${String(arrivalsPerSecond)} }
flows:
  - name: run-and-poll
    steps:
      - run: { input: { prompt: "a short prompt for the bench", max_tokens: 16 } }
      - poll: { until: final, interval: ${String(opts.pollIntervalMs ?? 20)}ms, timeout: 10s }
`,
    'bench-flow.yaml',
  );
}

/**
 * The machine's own timer noise: how late a 1 ms-grained timer loop on this CPU fires, with nothing
 * else to do. Scheduling lateness of the runner can only be read against this floor (other
 * processes on the same core, steal time).
 */
export async function timerNoise(ms = 3000, spacingMs = 0.5): Promise<{ p50: number; p99: number }> {
  const lat: number[] = [];
  const end = performance.now() + ms;
  let due = performance.now() + spacingMs;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      for (; due <= now; due += spacingMs) lat.push(now - due);
      if (now < end) setTimeout(tick, Math.max(0, due - now));
      else resolve();
    };
    tick();
  });
  lat.sort((a, b) => a - b);
  const at = (p: number): number =>
    lat[Math.min(lat.length - 1, Math.ceil(p * lat.length) - 1)] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

export type Sink = 'none' | 'metrics' | 'checks';

export interface FlowResult {
  outcome: RunOutcome;
  /** Exchange records that ended within the phase, per second of the phase. */
  requestsPerSecond: number;
  requests: number;
  errors: number;
  arrivals: number;
  scheduled: number;
  dropped: number;
  /** Arrival rate achieved, from the first to the last arrival's send. */
  achievedRate: number;
  latenessP50: number;
  latenessP99: number;
  /** Event-loop delay during the run (perf_hooks), p99 in ms. */
  loopDelayP99: number;
  cpuUsPerRequest: number;
  wallSeconds: number;
}

/**
 * Runs the flow scenario against `origin`, with the sinks a `jobstorm run` has: metrics
 * (`--no-check`) or metrics and the live checker (the default).
 */
export async function runFlow(origin: string, scenario: Scenario, sink: Sink): Promise<FlowResult> {
  const phaseMs = scenario.phases[0]?.kind === 'constant' ? scenario.phases[0].durationMs : 0;
  const rate = scenario.phases[0]?.kind === 'constant' ? scenario.phases[0].rate : 0;
  const lateness: number[] = [];
  let requests = 0;
  let inPhase = 0;
  let errors = 0;
  let dropped = 0;
  let firstSent = Number.POSITIVE_INFINITY;
  let lastSent = 0;
  const metrics = sink === 'none' ? undefined : new RunMetrics();
  let checker: Checker | undefined;
  // As in a run session: each record is folded once, for the metrics and the checks.
  const fold = sink === 'none' ? undefined : new JobFold();
  const onExchange = (r: ExchangeRecord): void => {
    requests++;
    if (r.endAt <= phaseMs) inPhase++;
    if (r.error) errors++;
    if (r.step === '1:run') {
      lateness.push(r.sentAt - r.intendedAt);
      if (r.sentAt < firstSent) firstSent = r.sentAt;
      if (r.sentAt > lastSent) lastSent = r.sentAt;
    }
  };
  const onRecord = (r: JobstormRecord): void => {
    if (r.type === 'exchange') onExchange(r);
    else if (r.type === 'dropped') dropped++;
    else if (r.type === 'run' && sink === 'checks') checker = new Checker(r);
    const jobs = fold?.add(r);
    if (jobs) {
      metrics?.add(r, jobs);
      checker?.add(r, jobs);
    }
  };
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpu0 = cpuMicros();
  const t0 = performance.now();
  const outcome = await runScenario({
    clock: systemClock,
    scenario,
    target: { baseUrl: `${origin}/v2/ep`, apiKey: 'bench-key', ownsEndpoint: false },
    runId: 'bench',
    onRecord,
    sampleHealth: false,
  });
  loop.disable();
  checker?.finish();
  const wallSeconds = (performance.now() - t0) / 1000;
  const cpu = cpuMicros() - cpu0;
  lateness.sort((a, b) => a - b);
  const at = (p: number): number =>
    lateness[Math.min(lateness.length - 1, Math.ceil((p / 100) * lateness.length) - 1)] ?? Number.NaN;
  return {
    outcome,
    requestsPerSecond: inPhase / (phaseMs / 1000),
    requests,
    errors,
    arrivals: lateness.length,
    scheduled: Math.round((rate * phaseMs) / 1000),
    dropped,
    achievedRate: (lateness.length - 1) / ((lastSent - firstSent) / 1000),
    latenessP50: at(50),
    latenessP99: at(99),
    loopDelayP99: loop.percentile(99) / 1e6,
    cpuUsPerRequest: cpu / requests,
    wallSeconds,
  };
}

/** pool-generator.ts as plain JavaScript in a temporary folder, its `undici` import made absolute. */
export async function transpilePool(dir: string): Promise<string> {
  const source = await readFile(fileURLToPath(new URL('./pool-generator.ts', import.meta.url)), 'utf8');
  const js = ts
    .transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    })
    .outputText.replace(/from ['"]undici['"]/, `from '${import.meta.resolve('undici')}'`);
  const file = join(dir, 'pool-generator.mjs');
  await writeFile(file, js);
  return file;
}
