/**
 * "An engine whose cost follows its load": jobstorm's whole CLI process side by side with its
 * peers, on the same flow, server and machine. The bare flow server (bench/runner-bare-server.ts)
 * runs on CPU 1; each generator runs in turn on CPU 0 (taskset), as a whole process under
 * `/usr/bin/time`, so its CPU (user + sys) includes start-up, exit and, for jobstorm, the checks
 * (on by default: all checks on) and the reports it writes. The flow: POST /run, then ONE GET
 * /status of its id (two requests per arrival), open model at a fixed arrival rate.
 *
 *   (a) Pool: bench/pool-generator.ts, a bare undici `Pool` open-model loop: the floor. It is
 *       transpiled to plain JavaScript first, so it does not pay tsx's start-up, as jobstorm's
 *       built dist/ does not.
 *   (b) jobstorm: `node dist/cli/main.js run <scenario> --no-preflight --quiet` (build first).
 *   (c) Artillery 2 (bench/artillery/run-status.yml) at the first rate only, when installed.
 *
 * Printed per run: offered arrivals/s, achieved requests/s (measured requests over the measured
 * seconds), CPU seconds, CPU % of one core (CPU seconds over the process's own wall time, start-up
 * and exit included), CPU µs per request (the process's whole CPU over EVERY request it sent, the
 * warm-up's included: the Pool script's `sent`, jobstorm's operations plus its summary's
 * `warmup.requests`, Artillery's `http.requests`; jobstorm's engine also makes at most 256 round
 * trips to a loopback sink of its own before time 0, start-up like the JIT's, not counted), the
 * same over the measured window alone for the Pool and jobstorm (µs/win: CPU sampled from /proc
 * between the warm-up's end and the last arrival's due time, over the requests measured: the
 * steady cost, without start-up and reports; bench/process-cpu.ts),
 * arrival lateness p99, p99 latency from the intended start (/run from the arrival's intended
 * time, /status from when it was due), and the share of the machine's CPU the hypervisor stole
 * meanwhile (/proc/stat).
 * Then the issue's goals, each judged only at the rate it is defined for (and said to be not
 * judged when that rate was not run): at 1,000 arrivals/s, jobstorm CPU ÷ Pool CPU ≤ 1.5, with
 * arrival lateness p99 < 5 ms; at 4,000 arrivals/s (8,000 requests/s offered: an arrival is two
 * requests), jobstorm CPU/request ÷ Pool CPU/request ≤ 1.5; at the rates offering at least that
 * (give several, e.g. 1000,4000,4200), ≥ 8,000 req/s kept on one core with p99 < 10 ms;
 * jobstorm's best rate kept ≥ 8× Artillery's requests/s, Artillery run at 1,000 arrivals/s and
 * saturated there (at equal offered arrivals the ratio is capped: an arrival is two requests).
 *
 * Artillery is not a dependency: install it aside, e.g.
 *   mkdir -p /tmp/jobstorm-artillery && cd /tmp/jobstorm-artillery && npm init -y && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm i artillery@2
 * (or set ARTILLERY to its binary). Without it the Artillery row and goal are skipped.
 *
 * With a warm-up (third argument, seconds), the Pool script and jobstorm (the scenario's `warmup`)
 * both send their first seconds but measure only the rest, as wrk2 leaves out its calibration:
 * req/s, lateness and latency are then of the steady state, not of start-up (JIT, connection
 * set-up), which on a 10 s run is most of a p99. CPU is always the whole process, start-up
 * included, and so divided by every request sent. Artillery has no such switch and is measured whole.
 *
 * On one core, V8's garbage-collector helper threads (concurrent marking, parallel scavenges)
 * preempt the event loop they are meant to spare: each mark-compact then stalls it for tens of ms,
 * and the 10 s window that holds one has a p99 of 35-70 ms at 8,000 req/s where the others have
 * 3-9 ms. JOBSTORM_NODE_FLAGS=--single-threaded-gc runs jobstorm with that flag to show it.
 *
 * Then, whatever the arguments, a cold-start row (`cold`): 10 s at 4,000 arrivals/s with no
 * warm-up, as a user's first short run is. Its goal: p99(run) under 10 ms, or EVERY second sent
 * late marked generator-limited, not any one. A second is sent late when its /run p99 from the
 * intended start (summary.json `series.ops.run.p99`, per second) is 10 ms or more: the summary
 * keeps no per-second lateness of its own (`run.generator` is the run's), and against the bare
 * server, which answers in well under a millisecond, that p99 is the arrivals' lateness. A late
 * second is marked when a `generatorLimited` stretch covers any of it; the line lists both.
 *
 * Issue 52's compiled peers, when installed (`apt-get install hey wrk`; see bench/compiled-peers.ts):
 * a `hey` row at every rate, right after the Pool's and jobstorm's, and one `wrk` row at its own
 * saturating rate. With FLOW=run every tool sends the POST /run alone (one request an arrival;
 * 8,000 req/s is then 8,000 arrivals/s). Then issue 52's goals at 8,000 req/s offered, every check
 * on: jobstorm CPU/request ≤ 1.15× the Pool's and ≤ 1.3× hey's in the same run, and p99 from the
 * intended start within 1.5× the Pool's.
 *
 * With DASHBOARD=1 (issue 51), last: jobstorm at DASHBOARD_RATE arrivals/s (default 4,000) with
 * `--dashboard` and the page open in Chromium (pinned to CPU 1, beside the server, so the browser's
 * own work is not jobstorm's), alternated with the same run without, DASHBOARD_ROUNDS times
 * (default 2); the goal line compares jobstorm's CPU with and without (≤ 1.05), and each row notes
 * how many updates the page received.
 *
 * JOBSTORM_CLI=<path to another build's dist/cli/main.js> runs that build as the jobstorm rows
 * (e.g. a `git worktree` of the commit before a change, built), the rest unchanged.
 *
 *   npm run build && [FLOW=run] npx tsx bench/engine-vs-peers.ts [seconds=10] [rates=1000,4000] [warmup=0]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Summary } from '../src/report/summary.js';
import { HEY, WRK, heyCommand, parseHey, parseWrk, wrkCommand } from './compiled-peers.js';
import { ProcessCpu, firstChild } from './process-cpu.js';
import {
  type BenchFlow,
  canPin,
  hostTicks,
  runStatusScenarioYaml,
  startFlowServer,
  stealShare,
  transpilePool,
} from './runner-bench-setup.js';

const seconds = Number(process.argv[2] ?? 10);
const rates = (process.argv[3] ?? '1000,4000').split(',').map(Number);
const warmup = Number(process.argv[4] ?? 0);
const flow: BenchFlow = process.env.FLOW === 'run' ? 'run' : 'run-status';
/** Requests an arrival makes: the offered req/s is this times the arrival rate. */
const perArrival = flow === 'run' ? 1 : 2;
const artillery = process.env.ARTILLERY ?? '/tmp/jobstorm-artillery/node_modules/.bin/artillery';
/** Node flags for jobstorm's process only, e.g. JOBSTORM_NODE_FLAGS=--single-threaded-gc (see the header). */
const jobstormNodeFlags = (process.env.JOBSTORM_NODE_FLAGS ?? '').split(/\s+/).filter((f) => f.length > 0);
const root = fileURLToPath(new URL('..', import.meta.url));
/** JOBSTORM_CLI: another build's dist/cli/main.js, to set a before and an after side by side on one machine. */
const cli = process.env.JOBSTORM_CLI ?? join(root, 'dist/cli/main.js');
const artilleryScript = fileURLToPath(new URL('./artillery/run-status.yml', import.meta.url));

if (
  !Number.isFinite(seconds) ||
  seconds <= 0 ||
  rates.length === 0 ||
  rates.some((r) => !Number.isFinite(r) || r <= 0) ||
  !(warmup >= 0 && warmup < seconds)
) {
  console.error(
    'usage: npx tsx bench/engine-vs-peers.ts [seconds=10] [rates=1000,4000] [warmup=0, shorter than seconds]',
  );
  process.exit(2);
}
if (!existsSync('/usr/bin/time')) {
  console.error('needs /usr/bin/time (GNU time) for whole-process CPU');
  process.exit(2);
}
if (!existsSync(cli)) {
  console.error(`no ${cli}: run npm run build first`);
  process.exit(2);
}

interface Timed {
  code: number | null;
  stdout: string;
  stderr: string;
  /** user + sys of the whole process, from /usr/bin/time. */
  cpuSeconds: number;
  wallSeconds: number;
  /** Share of the machine's CPU time the hypervisor stole while it ran (Linux), 0..1. */
  steal: number | undefined;
  /** The process's CPU over wall time, to read it over the measured window only. */
  cpu: ProcessCpu;
}

/** Runs `cmd` on CPU 0 (when taskset is there) under /usr/bin/time. */
function timed(
  cmd: string[],
  env: NodeJS.ProcessEnv = process.env,
  onStderr?: (text: string) => void,
): Promise<Timed> {
  const args = ['-f', '%U %S %e', ...(canPin ? ['taskset', '-c', '0'] : []), ...cmd];
  const ticks = hostTicks();
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      onStderr?.(stderr);
    });
    // /usr/bin/time's child is the tool (taskset execs it in place).
    const cpu = new ProcessCpu(() => (child.pid === undefined ? undefined : firstChild(child.pid)));
    child.once('error', (e) => {
      cpu.stop();
      reject(e);
    });
    child.once('close', (code) => {
      const [user = Number.NaN, sys = Number.NaN, wall = Number.NaN] = (stderr.trim().split('\n').pop() ?? '')
        .split(' ')
        .map(Number);
      if (Number.isNaN(user + sys + wall))
        reject(new Error(`no timing from /usr/bin/time for ${cmd.join(' ')}:\n${stderr.slice(-2000)}`));
      else {
        cpu.stop(Date.now(), user + sys);
        resolve({
          code,
          stdout,
          stderr,
          cpuSeconds: user + sys,
          wallSeconds: wall,
          steal: stealShare(ticks, hostTicks()),
          cpu,
        });
      }
    });
  });
}

interface Row {
  tool: string;
  offered: number;
  /** Requests measured (the warm-up's left out), for req/s. */
  requests: number;
  /** Every request the process sent, the warm-up's included: what its whole CPU is divided by. */
  sent: number;
  errors: number;
  /** Requests per second over the test's seconds (or longer, when the tool ran on after). */
  rps: number;
  cpuSeconds: number;
  wallSeconds: number;
  steal: number | undefined;
  /**
   * CPU seconds over the measured window alone (after the warm-up, until the last arrival was
   * due) and the requests measured in it: the steady cost, without start-up and reports. Absent
   * for the tools measured whole (hey, wrk, Artillery: compiled, or without a warm-up switch).
   */
  window?: { cpuSeconds: number; requests: number };
  latenessP99?: number;
  runP99?: number;
  statusP99?: number;
  note: string;
}

/** `measuredFrom`: the warm-up left out of the requests counted, so out of the time too. */
const rowOf = (r: Omit<Row, 'rps'>, spanSeconds: number, measuredFrom = warmup, planned = seconds): Row => ({
  ...r,
  rps: r.requests / (Math.max(planned, spanSeconds) - measuredFrom),
});

/**
 * The cold-start row (issue 35): jobstorm's own start must not be the target's latency. 10 s at
 * 4,000 arrivals/s (8,000 requests/s), NO warm-up, pinned like every row: p99(run) under 10 ms, or
 * every second whose arrivals left late marked generator-limited in the summary.
 */
const COLD = { seconds: 10, rate: 8000 / perArrival };

/** The live dashboard open in a browser while one jobstorm run goes (DASHBOARD=1). */
interface Watcher {
  onStderr: (text: string) => void;
  /** After the run: closes the page; how many updates it received. */
  done: () => Promise<number>;
}

function chromiumWatcher(browser: Browser): Watcher {
  let opening: Promise<Page | undefined> | undefined;
  return {
    onStderr: (text) => {
      const url = opening ? undefined : /dashboard: (http\S+)/.exec(text)?.[1];
      if (url)
        opening = browser.newPage().then(
          async (page) => {
            await page.goto(url);
            return page;
          },
          () => undefined,
        );
    },
    done: async () => {
      const page = await opening;
      const frames =
        (await page?.evaluate<number>('window.jobstormFrames ? window.jobstormFrames.length : 0')) ?? 0;
      await page?.close();
      return frames;
    },
  };
}

/** Chromium on CPU 1 (with the server), so its work is never counted as jobstorm's (on CPU 0). */
async function pinnedChromium(dir: string): Promise<Browser> {
  const wrapper = join(dir, 'chromium-on-cpu1.sh');
  await writeFile(wrapper, `#!/bin/sh\nexec ${canPin ? 'taskset -c 1 ' : ''}/usr/bin/chromium "$@"\n`, {
    mode: 0o755,
  });
  return chromium.launch({
    executablePath: wrapper,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
}

/** jobstorm with and without the page open, alternated; the goal line compares their CPU. */
async function dashboardRounds(dir: string, origin: string): Promise<void> {
  const rate = Number(process.env.DASHBOARD_RATE ?? 4000);
  const rounds = Number(process.env.DASHBOARD_ROUNDS ?? 2);
  const browser = await pinnedChromium(dir);
  const plain: Row[] = [];
  const watched: Row[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const p = await runJobstorm(dir, origin, rate);
      printRow(p);
      plain.push(p);
      const watcher = chromiumWatcher(browser);
      let frames = 0;
      const d = await runJobstorm(dir, origin, rate, {
        seconds,
        warmup,
        tool: 'dashboard',
        dashboard: { onStderr: watcher.onStderr, done: async () => (frames = await watcher.done()) },
      });
      d.note += `, page got ${String(frames)} updates`;
      printRow(d);
      watched.push(d);
    }
  } finally {
    await browser.close();
  }
  // A round where either run fell behind (another process took the core) compares different
  // work: it is left out, and said so.
  const clean = plain.flatMap((p, i) => {
    const w = watched[i];
    return w && keptUp(p) && keptUp(w) ? [[p, w] as const] : [];
  });
  if (clean.length === 0) {
    console.log(`  dashboard: not judged: in every round a run fell behind (the machine was busy)`);
    return;
  }
  const cpu = (rows: readonly Row[]): number => rows.reduce((n, r) => n + r.cpuSeconds, 0) / rows.length;
  const [with_, without] = [cpu(clean.map(([, w]) => w)), cpu(clean.map(([p]) => p))];
  const r = with_ / without;
  console.log(
    `  dashboard: jobstorm CPU with the page open ÷ without at ${String(rate)}/s, mean of ${String(clean.length)} of ${String(rounds)} alternated rounds (both kept the pace): ${with_.toFixed(2)} s ÷ ${without.toFixed(2)} s = ${r.toFixed(3)} (goal ≤ 1.05): ${r <= 1.05 ? 'PASS' : 'MISS'}`,
  );
}

function field(o: unknown, key: string): unknown {
  return typeof o === 'object' && o !== null && key in o ? (o as Record<string, unknown>)[key] : undefined;
}
const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

interface PoolJson {
  /** Epoch ms of its time 0 (the first arrival's intended time). */
  startMs: number;
  requests: number;
  sent: number;
  errors: number;
  unfinished: number;
  seconds: number;
  latenessP99Ms: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  runP99Ms: number;
  statusP99Ms: number;
}

async function runPool(poolJs: string, origin: string, rate: number, s = seconds): Promise<Row> {
  const t = await timed([
    process.execPath,
    poolJs,
    origin,
    String(rate),
    String(s),
    String(s === seconds ? warmup : 0),
    flow,
  ]);
  const line = t.stdout.trim().split('\n').pop() ?? '';
  if (t.code !== 0 || !line.startsWith('{'))
    throw new Error(`pool generator failed (${String(t.code)}):\n${t.stderr.slice(-2000)}`);
  const j = JSON.parse(line) as PoolJson;
  return rowOf(
    {
      tool: 'pool',
      offered: rate,
      requests: j.requests,
      sent: j.sent,
      errors: j.errors,
      cpuSeconds: t.cpuSeconds,
      wallSeconds: t.wallSeconds,
      steal: t.steal,
      latenessP99: num(j.latenessP99Ms),
      runP99: num(j.runP99Ms),
      // null in JSON when it sent no /status (the run-only flow).
      statusP99: num(j.statusP99Ms),
      window: inWindow(t, j.startMs + (s === seconds ? warmup : 0) * 1000, j.startMs + s * 1000, j.requests),
      note: `p50 ${j.latencyP50Ms.toFixed(2)} ms all${j.unfinished > 0 ? `, ${String(j.unfinished)} unfinished` : ''}`,
    },
    j.seconds,
  );
}

/** The generator-limited stretches of a summary, as "t+0s for 1.0 s"; none: undefined. */
function limitedSeconds(s: Summary): string | undefined {
  const list = s.generatorLimited ?? [];
  if (list.length === 0) return undefined;
  return list
    .map((x) => `t+${String(Math.round(x.at / 1000))}s for ${(x.durationMs / 1000).toFixed(1)} s`)
    .join(', ');
}

/** The last cold-start run's summary, for its goal line. */
let coldSummary: Summary | undefined;

async function runJobstorm(
  dir: string,
  origin: string,
  rate: number,
  plan: { seconds: number; warmup: number; tool: string; dashboard?: Watcher } = {
    seconds,
    warmup,
    tool: 'jobstorm',
  },
): Promise<Row> {
  const scenario = join(dir, `engine-vs-peers-${plan.tool}-${String(rate)}.yaml`);
  const out = join(dir, `out-${plan.tool}-${String(rate)}`);
  await writeFile(scenario, runStatusScenarioYaml('engine-vs-peers', rate, plan.seconds, plan.warmup, flow));
  const t = await timed(
    [
      process.execPath,
      ...jobstormNodeFlags,
      cli,
      'run',
      scenario,
      '--target',
      `${origin}/v2/ep`,
      '--no-preflight',
      '--out',
      out,
      '--quiet',
      ...(plan.dashboard ? ['--dashboard'] : []),
    ],
    { ...process.env, JOBSTORM_API_KEY: 'bench-key' },
    plan.dashboard?.onStderr,
  );
  await plan.dashboard?.done();
  const file = join(out, 'summary.json');
  if (!existsSync(file))
    throw new Error(`jobstorm wrote no summary.json (exit ${String(t.code)}):\n${t.stderr.slice(-2000)}`);
  const s = JSON.parse(await readFile(file, 'utf8')) as Summary;
  const run = s.operations.run;
  const status = s.operations.status;
  const failed = (o: Summary['operations'][string] | undefined): number =>
    o ? o.countErrors + o.count4xx + o.count5xx + o.count429 : 0;
  // Optional fields the engine work adds: run.generator.latenessP99Ms and a top-level generatorLimited list.
  const lateness = num(field(field(s.run, 'generator'), 'latenessP99Ms'));
  const limited = field(s, 'generatorLimited');
  const notes = [
    `exit ${String(t.code)}`,
    `verdict ${s.verdict.status}`,
    `${String(s.checks.length)} checks`,
    `${String(s.violations.length)} violations`,
  ];
  // The summary leaves generatorLimited out when the generator kept up; run.generator says it was measured.
  if (Array.isArray(limited)) notes.push(`generator-limited: ${limitedSeconds(s) ?? 'no'}`);
  else if (lateness !== undefined) notes.push('generator-limited: no');
  if (s.dropped.total > 0) notes.push(`${String(s.dropped.total)} dropped`);
  if (plan.tool === 'cold') coldSummary = s;
  return rowOf(
    {
      tool: plan.tool,
      offered: rate,
      requests: (run?.requests ?? 0) + (status?.requests ?? 0),
      // Every operation (the /health samples too) and the scenario's warm-up: all it sent to the server.
      sent: Object.values(s.operations).reduce((n, o) => n + o.requests, 0) + (s.warmup?.requests ?? 0),
      errors: failed(run) + failed(status),
      cpuSeconds: t.cpuSeconds,
      wallSeconds: t.wallSeconds,
      steal: t.steal,
      latenessP99: lateness,
      runP99: run?.latency.p99,
      statusP99: status?.latency.p99,
      // The measured operations (the /health samples too): what was sent in the window.
      window: inWindow(
        t,
        s.run.startMs + (s.warmup?.ms ?? 0),
        s.run.startMs + s.run.durationMs,
        Object.values(s.operations).reduce((n, o) => n + o.requests, 0),
      ),
      note: notes.join(', '),
    },
    s.run.durationMs / 1000,
    plan.warmup,
    plan.seconds,
  );
}

interface ArtilleryReport {
  aggregate: {
    counters: Record<string, number | undefined>;
    summaries?: Record<string, { p99?: number } | undefined>;
    firstMetricAt?: number;
    lastMetricAt?: number;
  };
}

async function runArtillery(dir: string, origin: string, rate: number): Promise<Row> {
  const output = join(dir, 'artillery-report.json');
  const overrides = JSON.stringify({ config: { phases: [{ duration: seconds, arrivalRate: rate }] } });
  const t = await timed(
    [
      artillery,
      'run',
      '--quiet',
      '--target',
      origin,
      '--overrides',
      overrides,
      '--output',
      output,
      artilleryScript,
    ],
    { ...process.env, ARTILLERY_DISABLE_TELEMETRY: 'true' },
  );
  if (!existsSync(output))
    throw new Error(`artillery wrote no report (exit ${String(t.code)}):\n${t.stderr.slice(-2000)}`);
  const report = JSON.parse(await readFile(output, 'utf8')) as ArtilleryReport;
  const c = report.aggregate.counters;
  const errors = Object.entries(c)
    .filter(([k]) => k.startsWith('errors.'))
    .reduce((sum, [, v]) => sum + (v ?? 0), 0);
  const p99 = report.aggregate.summaries?.['http.response_time']?.p99;
  // Its own first and last metric: Artillery finishes its virtual users after the phase.
  const spanS = ((report.aggregate.lastMetricAt ?? 0) - (report.aggregate.firstMetricAt ?? 0)) / 1000;
  const note = `exit ${String(t.code)}, ${String(c['http.requests'] ?? 0)} sent, ${String(c['vusers.failed'] ?? 0)} vusers failed, p99 ${p99 === undefined ? 'n/a' : String(p99)} ms all requests from send (not intended start)`;
  return rowOf(
    {
      tool: 'artillery',
      offered: rate,
      requests: c['http.responses'] ?? 0,
      sent: c['http.requests'] ?? 0,
      errors,
      cpuSeconds: t.cpuSeconds,
      wallSeconds: t.wallSeconds,
      steal: t.steal,
      note,
    },
    spanS,
    0,
  );
}

/** hey at the arrival rate (bench/compiled-peers.ts): measured whole, p99 from the send. */
async function runHey(dir: string, origin: string, rate: number): Promise<Row> {
  const cmd = heyCommand(dir, origin, rate, seconds, flow);
  const t = await timed(['sh', '-c', cmd.shell]);
  const [run, status] = await Promise.all(cmd.outputs.map(async (f) => parseHey(await readFile(f, 'utf8'))));
  if (!run) throw new Error('hey wrote no report');
  const parts = status ? [run, status] : [run];
  const sent = parts.reduce((n, x) => n + x.sent, 0);
  return {
    tool: 'hey',
    offered: rate,
    requests: sent,
    sent,
    errors: parts.reduce((n, x) => n + x.errors, 0),
    rps: parts.reduce((n, x) => n + x.rps, 0),
    cpuSeconds: t.cpuSeconds,
    wallSeconds: t.wallSeconds,
    steal: t.steal,
    runP99: run.p99Ms,
    statusP99: status?.p99Ms,
    note: `exit ${String(t.code)}, ${String(parts.length)} process${parts.length > 1 ? 'es' : ''}, p99 from the send (a closed loop per worker), measured whole`,
  };
}

/** wrk saturating its 64 connections, for scale: its offered rate is what it achieved. */
async function runWrk(dir: string, origin: string): Promise<Row> {
  const cmd = await wrkCommand(dir, origin, seconds, flow);
  const t = await timed(['sh', '-c', cmd.shell]);
  const w = parseWrk(await readFile(cmd.outputs[0] ?? '', 'utf8'));
  return {
    tool: 'wrk',
    offered: Math.round(w.rps / perArrival),
    requests: w.sent,
    sent: w.sent,
    errors: w.errors,
    rps: w.rps,
    cpuSeconds: t.cpuSeconds,
    wallSeconds: t.wallSeconds,
    steal: t.steal,
    runP99: w.p99Ms,
    note: `exit ${String(t.code)}, saturating (no rate: arr/s is what it reached), p99 of all requests from the send`,
  };
}

/**
 * Issue 52 part 3, at 8,000 req/s offered with every check on: CPU per request ≤ 1.15× the Pool's
 * and ≤ 1.3× hey's in the same run; p99 from the intended start (the larger of /run's and
 * /status's) within 1.5× the Pool's. wrk's CPU per request is printed for scale.
 */
function compiledGoals(rows: readonly Row[], wrk: Row | undefined): void {
  const [p, j, h] = ['pool', 'jobstorm', 'hey'].map((t) => find(rows, t, GOAL2_RATE));
  if (!p || !j) return notJudged('issue 52: jobstorm CPU/request ÷ Pool, ÷ hey; p99 ÷ Pool', GOAL2_RATE);
  const offered = `${String(perArrival * GOAL2_RATE)} req/s offered, flow ${flow}`;
  const r = usPerRequest(j) / usPerRequest(p);
  console.log(
    `  issue 52: jobstorm CPU/request ÷ Pool's at ${offered}: ${usPerRequest(j).toFixed(1)} µs ÷ ${usPerRequest(p).toFixed(1)} µs = ${r.toFixed(2)} (goal ≤ 1.15): ${verdict(r <= 1.15)}`,
  );
  if (j.window && p.window) {
    const rw = usPerRequestWindow(j) / usPerRequestWindow(p);
    console.log(
      `  issue 52: the same over the measured window alone (no start-up, no reports): ${usPerRequestWindow(j).toFixed(1)} µs ÷ ${usPerRequestWindow(p).toFixed(1)} µs = ${rw.toFixed(2)} (goal ≤ 1.15): ${verdict(rw <= 1.15)}`,
    );
  }
  if (h) {
    const rh = usPerRequest(j) / usPerRequest(h);
    console.log(
      `  issue 52: jobstorm CPU/request ÷ hey's at ${offered}: ${usPerRequest(j).toFixed(1)} µs ÷ ${usPerRequest(h).toFixed(1)} µs = ${rh.toFixed(2)} (goal ≤ 1.3; hey ${keptUp(h) ? 'kept the pace' : 'fell behind'}): ${verdict(rh <= 1.3)}`,
    );
    if (j.window) {
      const rhw = usPerRequestWindow(j) / usPerRequest(h);
      console.log(
        `  issue 52: the same, jobstorm over the measured window alone (hey measured whole): ${usPerRequestWindow(j).toFixed(1)} µs ÷ ${usPerRequest(h).toFixed(1)} µs = ${rhw.toFixed(2)} (goal ≤ 1.3): ${verdict(rhw <= 1.3)}`,
      );
    }
  } else console.log('  issue 52: jobstorm ÷ hey: not judged (hey not installed)');
  const p99 = (x: Row): number => Math.max(x.runP99 ?? 0, x.statusP99 ?? 0);
  const rp = p99(j) / p99(p);
  console.log(
    `  issue 52: jobstorm p99 from the intended start ÷ Pool's at ${offered}: ${ms(p99(j))} ms ÷ ${ms(p99(p))} ms = ${rp.toFixed(2)} (goal ≤ 1.5): ${verdict(rp <= 1.5)}`,
  );
  if (wrk)
    console.log(
      `  (for scale: wrk ${usPerRequest(wrk).toFixed(1)} µs/request at ${wrk.rps.toFixed(0)} req/s, saturating; jobstorm ÷ wrk = ${(usPerRequest(j) / usPerRequest(wrk)).toFixed(2)})`,
    );
}

/** Steal above which a run's latency figures are the host's (see the closing line it prints). */
const NOISY_STEAL = 0.05;

/** Kept the pace: ≥ 95% of the offered requests per second (`perArrival` per arrival) achieved. */
const keptUp = (r: Row): boolean => r.rps >= 0.95 * perArrival * r.offered;
const ms = (x: number | undefined): string => (x === undefined ? 'n/a' : x.toFixed(2));
/** The process's whole CPU over every request it sent (see the header). */
const usPerRequest = (r: Row): number => (r.cpuSeconds * 1e6) / r.sent;
/** Over the measured window; the whole process's for a tool measured whole (see Row.window). */
const usPerRequestWindow = (r: Row): number =>
  r.window ? (r.window.cpuSeconds * 1e6) / r.window.requests : usPerRequest(r);

/** The process's CPU between two epoch times and the requests measured then, when sampled. */
function inWindow(t: Timed, fromMs: number, toMs: number, requests: number): Row['window'] {
  const cpuSeconds = t.cpu.between(fromMs, toMs);
  return cpuSeconds === undefined || requests <= 0 ? undefined : { cpuSeconds, requests };
}

function printRow(r: Row): void {
  const cells = [
    r.tool.padEnd(9),
    String(r.offered).padStart(7),
    r.rps.toFixed(0).padStart(8),
    r.cpuSeconds.toFixed(2).padStart(6),
    // Over the process's own wall time: CPU a core could give it while it ran (never over 100% of one pinned core).
    ((r.cpuSeconds / r.wallSeconds) * 100).toFixed(1).padStart(6),
    usPerRequest(r).toFixed(1).padStart(7),
    (r.window ? usPerRequestWindow(r).toFixed(1) : 'whole').padStart(7),
    ms(r.latenessP99).padStart(9),
    ms(r.runP99).padStart(8),
    ms(r.statusP99).padStart(8),
    String(r.errors).padStart(6),
    r.wallSeconds.toFixed(1).padStart(5),
    (r.steal === undefined ? 'n/a' : (r.steal * 100).toFixed(1)).padStart(5),
  ];
  console.log(`${cells.join(' ')}  ${keptUp(r) ? '' : 'fell behind (< 95% of offered req/s); '}${r.note}`);
}

/** Goal 1 is defined at 1,000 arrivals/s; goal 2 at 4,000 (8,000 requests/s offered: an arrival is two requests). */
const GOAL1_RATE = 1000;
const GOAL2_RATE = 8000 / perArrival;
/** The cold-start bound on p99(run), and what makes a second late. */
const COLD_P99_MS = 10;

const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');
const find = (rows: readonly Row[], tool: string, rate: number): Row | undefined =>
  rows.find((r) => r.tool === tool && r.offered === rate);
const notJudged = (goal: string, rate: number): void =>
  console.log(
    `  ${goal}: not judged: it is defined at ${String(rate)} arrivals/s, not among the rates given`,
  );

function goalOne(rows: readonly Row[]): void {
  const [p, j] = [find(rows, 'pool', GOAL1_RATE), find(rows, 'jobstorm', GOAL1_RATE)];
  if (!p || !j) return notJudged('jobstorm CPU ÷ Pool CPU, arrival lateness', GOAL1_RATE);
  const r = j.cpuSeconds / p.cpuSeconds;
  console.log(
    `  jobstorm CPU ÷ Pool CPU at ${String(GOAL1_RATE)}/s: ${j.cpuSeconds.toFixed(2)} s ÷ ${p.cpuSeconds.toFixed(2)} s = ${r.toFixed(2)} (goal ≤ 1.5): ${verdict(r <= 1.5)}`,
  );
  if (j.latenessP99 !== undefined)
    console.log(
      `  jobstorm arrival lateness p99 at ${String(GOAL1_RATE)}/s${warmup > 0 ? ` after a ${String(warmup)} s warm-up` : ''}: ${ms(j.latenessP99)} ms (goal < 5 ms; the Pool's ${ms(p.latenessP99)} ms): ${verdict(j.latenessP99 < 5)}`,
    );
}

function goalTwo(rows: readonly Row[]): void {
  const [p, j] = [find(rows, 'pool', GOAL2_RATE), find(rows, 'jobstorm', GOAL2_RATE)];
  if (!p || !j) return notJudged('jobstorm CPU/request ÷ Pool CPU/request', GOAL2_RATE);
  const r = usPerRequest(j) / usPerRequest(p);
  console.log(
    `  jobstorm CPU/request ÷ Pool CPU/request at ${String(GOAL2_RATE)}/s (${String(perArrival * GOAL2_RATE)} req/s offered): ${usPerRequest(j).toFixed(1)} µs ÷ ${usPerRequest(p).toFixed(1)} µs = ${r.toFixed(2)} (goal ≤ 1.5): ${verdict(r <= 1.5)}`,
  );
}

/**
 * A rate offering at least 8,000 req/s kept (≥ 95% of its offer, and ≥ 8,000 req/s measured) on
 * one core with a low p99. Every such rate run is judged, the best one printed: offering exactly
 * 8,000 req/s measures a hair under it (the last arrivals' /status land after the window), so a
 * run offering a little more is how the bench shows 8,000 kept.
 */
function sustainedGoal(rows: readonly Row[]): void {
  // The run-only flow has no /status to take the worse of (before, its missing p99 read as Infinity).
  const p99 = (r: Row): number =>
    flow === 'run' ? (r.runP99 ?? Infinity) : Math.max(r.runP99 ?? Infinity, r.statusP99 ?? Infinity);
  // Only rows offered 8,000 req/s or more are tried, so keeping the pace is keeping 8,000: a run
  // that kept it counts a few requests fewer at the window's edges (7,996), not falling short.
  const sustains = (r: Row): boolean => keptUp(r) && p99(r) < 10;
  const tried = rows.filter((r) => r.tool === 'jobstorm' && r.offered >= GOAL2_RATE);
  const shown = tried.filter(sustains).sort((a, b) => b.rps - a.rps)[0] ?? tried[0];
  if (!shown) return notJudged('jobstorm sustained on one core', GOAL2_RATE);
  const cores = shown.cpuSeconds / shown.wallSeconds;
  console.log(
    `  jobstorm sustained at ${String(shown.offered)}/s (${String(perArrival * shown.offered)} req/s offered): ${shown.rps.toFixed(0)} req/s, ${keptUp(shown) ? 'kept the pace' : 'fell behind'}, whole process ${(cores * 100).toFixed(0)}% of a core, p99 from intended${warmup > 0 ? ` after a ${String(warmup)} s warm-up` : ''} ${ms(p99(shown))} ms (goal: kept ≥ 8000 req/s offered on one core, p99 < 10 ms): ${verdict(sustains(shown))}`,
  );
}

interface LateSecond {
  /** Seconds from the run's start to the beginning of this wall-clock second (0 for one begun before it). */
  at: number;
  p99: number;
  marked: boolean;
}

/**
 * The seconds whose /run p99 from the intended start reached COLD_P99_MS (summary.json's
 * per-second series), each with whether a generator-limited stretch covers any of it.
 */
function lateSeconds(s: Summary): LateSecond[] {
  const offsetMs = s.series.startSec * 1000 - s.run.startMs;
  const stretches = s.generatorLimited ?? [];
  return (s.series.ops.run?.p99 ?? []).flatMap((p99, i) => {
    if (p99 === null || p99 < COLD_P99_MS) return [];
    const from = offsetMs + i * 1000;
    const marked = stretches.some((x) => x.at < from + 1000 && x.at + x.durationMs > from);
    // A wall-clock second begun before the run's start holds its first fraction of a second only.
    return [{ at: Math.max(0, from / 1000), p99, marked }];
  });
}

function coldGoal(cold: Row): void {
  const late = coldSummary ? lateSeconds(coldSummary) : [];
  const p99 = cold.runP99 ?? Infinity;
  const unmarked = late.filter((x) => !x.marked);
  const ok = p99 < COLD_P99_MS || (late.length > 0 && unmarked.length === 0);
  const seconds = late.map(
    (x) => `t+${x.at.toFixed(1)}s (p99 ${x.p99.toFixed(1)} ms${x.marked ? ', marked' : ', NOT marked'})`,
  );
  console.log(
    `  jobstorm cold start, ${String(COLD.seconds)} s at ${String(perArrival * COLD.rate)} req/s, no warm-up, pinned: p99(run) ${ms(cold.runP99)} ms; seconds sent late (their p99(run) ≥ ${String(COLD_P99_MS)} ms): ${seconds.join(', ') || 'none'}; generator-limited: ${(coldSummary && limitedSeconds(coldSummary)) ?? 'never'} (goal p99(run) < ${String(COLD_P99_MS)} ms, or every late second marked): ${verdict(ok)}`,
  );
}

function artilleryGoal(rows: readonly Row[], art: Row | undefined): void {
  if (!art) {
    console.log('  jobstorm ÷ Artillery: skipped (Artillery not installed)');
    return;
  }
  // Saturated: it could not keep the pace offered (it ends its arrivals' requests late), or its core was used up.
  const saturated = !keptUp(art) || art.cpuSeconds / art.wallSeconds >= 0.85;
  // What each sustains on the same flow and machine: jobstorm's best rate kept, Artillery's saturated rate.
  const kept = rows.filter((x) => x.tool === 'jobstorm' && keptUp(x));
  const best = kept.length > 0 ? Math.max(...kept.map((x) => x.rps)) : 0;
  const r = best / art.rps;
  console.log(
    `  jobstorm's best req/s kept ÷ Artillery's req/s: ${best.toFixed(0)} ÷ ${art.rps.toFixed(0)} = ${r.toFixed(2)}× (goal ≥ 8×; Artillery saturated at ${String(GOAL1_RATE)} arrivals/s: ${saturated ? 'yes' : 'no'}): ${saturated ? verdict(r >= 8) : 'n/a (Artillery kept up: offer it more)'}`,
  );
  const j1 = find(rows, 'jobstorm', GOAL1_RATE);
  if (j1)
    console.log(
      `    (at equal offered arrivals, ${String(GOAL1_RATE)}/s: ${j1.rps.toFixed(0)} ÷ ${art.rps.toFixed(0)} = ${(j1.rps / art.rps).toFixed(2)}×, capped at ${((perArrival * GOAL1_RATE) / art.rps).toFixed(2)}× since an arrival is ${perArrival === 2 ? 'two requests' : 'one request'})`,
    );
}

/** Each goal at the rate it is defined for; the highest rate's CPU per request for scale. */
function goalLines(rows: readonly Row[], cold: Row, art: Row | undefined): void {
  goalOne(rows);
  goalTwo(rows);
  sustainedGoal(rows);
  coldGoal(cold);
  const high = Math.max(...rates);
  const [pt, jt] = [find(rows, 'pool', high), find(rows, 'jobstorm', high)];
  if (high !== GOAL2_RATE && pt && jt)
    console.log(
      `  (not a goal: at the highest rate, ${String(high)}/s, CPU/request ${usPerRequest(jt).toFixed(1)} µs ÷ ${usPerRequest(pt).toFixed(1)} µs = ${(usPerRequest(jt) / usPerRequest(pt)).toFixed(2)}; ${keptUp(jt) ? 'kept the pace' : 'fell behind'})`,
    );
  artilleryGoal(rows, art);
}

const dir = await mkdtemp(join(tmpdir(), 'jobstorm-engine-vs-peers-'));
const server = await startFlowServer(1);
const rows: Row[] = [];
try {
  const poolJs = await transpilePool(dir);
  console.log(
    `pinned: ${canPin ? 'generators CPU 0, server CPU 1' : 'NO (taskset unavailable or < 2 CPUs): figures are not comparable'}; ${String(seconds)} s per run; rates ${rates.join(', ')} arrivals/s`,
  );
  console.log(
    `load average before: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (other work on CPUs 0 and 1 skews every figure)`,
  );
  console.log(
    `flow: ${flow === 'run' ? 'POST /run alone (1 request per arrival)' : 'POST /run, then one GET /status (2 requests per arrival)'}; CPU = user + sys of the whole process (/usr/bin/time), incl. start-up and exit; %core = CPU over its wall time; µs/req = CPU over every request it sent, warm-up included; µs/win = CPU over the measured window alone (after the warm-up, until the last arrival was due; sampled from /proc) over the requests measured, without start-up and reports (whole: the tool measured whole)`,
  );
  if (jobstormNodeFlags.length > 0)
    console.log(`jobstorm runs as: node ${jobstormNodeFlags.join(' ')} dist/cli/main.js`);
  if (warmup > 0)
    console.log(
      `warm-up: the first ${String(warmup)} s of pool and jobstorm are sent, not measured: req/s, lateness and latency are of the remaining ${String(seconds - warmup)} s (CPU is whole; Artillery is measured whole)`,
    );
  await runPool(poolJs, server.origin, rates[0] ?? 1000, 1); // warms the server up
  console.log(
    '\ntool      arr/s   req/s  CPU s  %core  µs/req  µs/win  late p99  run p99 stat p99 errors  wall steal%  notes (ms)',
  );
  for (const rate of rates) {
    const p = await runPool(poolJs, server.origin, rate);
    printRow(p);
    rows.push(p);
    const j = await runJobstorm(dir, server.origin, rate);
    printRow(j);
    rows.push(j);
    if (existsSync(HEY)) {
      const h = await runHey(dir, server.origin, rate);
      printRow(h);
      rows.push(h);
    }
  }
  if (!existsSync(HEY)) console.log(`hey: skipped, not installed at ${HEY} (apt-get install hey)`);
  // Cold start: no warm-up whatever the third argument says; the row the issue judges start-up by.
  const cold = await runJobstorm(dir, server.origin, COLD.rate, {
    seconds: COLD.seconds,
    warmup: 0,
    tool: 'cold',
  });
  printRow(cold);
  let wrk: Row | undefined;
  if (existsSync(WRK)) {
    wrk = await runWrk(dir, server.origin);
    printRow(wrk);
  } else console.log(`wrk: skipped, not installed at ${WRK} (apt-get install wrk)`);
  let art: Row | undefined;
  if (existsSync(artillery)) {
    art = await runArtillery(dir, server.origin, GOAL1_RATE);
    printRow(art);
  } else console.log(`artillery: skipped, not installed at ${artillery} (see this file's header)`);
  console.log('\ngoals');
  goalLines(rows, cold, art);
  compiledGoals(rows, wrk);
  if (process.env.DASHBOARD === '1') {
    console.log('\ndashboard (issue 51)');
    await dashboardRounds(dir, server.origin);
  }
  const steals = rows.map((x) => x.steal).filter((x): x is number => x !== undefined);
  if (steals.length > 0) {
    const worst = Math.max(...steals);
    // Steal is one way a shared VM makes latency noisy (the vCPU waits while the host runs
    // something else), not the only one: the Pool's own row, run just before, stays the control.
    console.log(
      `\nhost: the hypervisor stole up to ${(worst * 100).toFixed(1)}% of the machine's CPU during a run${worst > NOISY_STEAL ? `: above ${String(NOISY_STEAL * 100)}%, latency and lateness figures say more about the host than about the code (CPU figures hold better)` : ''}; the Pool's own lateness and p99 in each row are the control`,
    );
  }
} finally {
  server.stop();
  await rm(dir, { recursive: true, force: true });
}
