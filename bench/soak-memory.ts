/**
 * Issue 52, "hours, not minutes": does jobstorm's memory stay flat on a long soak, and does a run
 * inside a fixed heap judge as it does without one?
 *
 * What it runs: jobstorm's built CLI (`node dist/cli/main.js run … --no-preflight --quiet`, every
 * check on), pinned to CPU 0, against the bare flow server (bench/runner-bare-server.ts) on CPU 1,
 * at `rate` arrivals/s for `minutes`. The flow is issue 52's: `run` only (jobs are never seen
 * final, so every cap on jobs fills: the fold and the checks follow 200,000 at once, the checks
 * keep 500,000 more in brief), or with `--flow=poll` `run` then a poll every second until final
 * (the server finishes a job at its second poll: three requests an arrival).
 *
 * Why the CLI and not the library in this process: the CLI is what a soak runs (with the heap
 * growth it sets for itself, src/cli/heap-growth.ts), and its heap after a full collection can
 * be read from outside the product: the child runs with `--expose-gc` and a preload (`--import`,
 * written to a temporary folder) that every 10 s calls gc() and appends `process.memoryUsage()`
 * to a file. Nothing in the product changes for it. The forced full collection every 10 s costs
 * the run a pause of tens of ms each time (its lateness figures are not this bench's to read).
 *
 * Printed: the series (seconds, RSS, heap used after GC, heap total, array buffers, all MB), the
 * caps the run reached (summary.json `caps`), and the verdict lines:
 *   - heap after GC is FLAT when its least-squares slope over the judged window is under
 *     FLAT_HEAP_MB_PER_MIN; RSS is BOUNDED when the second half of the window sets no new high
 *     (its peak within RSS_HIGH_MARGIN of the first half's): RSS moves by tens of MB between
 *     samples as V8 grows and shrinks its heap, so a slope over minutes reads noise, a new high
 *     does not (a leak keeps making them). The slope is printed too.
 *     The judged window is the later of the run's second half and the time the caps are full
 *     (estimated from the rate: the checks' 200,000 held plus 500,000 in brief, a 10 s margin);
 *     with fewer than 6 samples in it the run was too short: NOT JUDGED, and it says how long to run.
 *   - with `--max-old-space-size=N` (for jobstorm's process only), the same run is then made
 *     without it (`--no-compare` skips that) and the two verdicts are compared: status, violated
 *     check ids, failed thresholds. A run that ran out of heap says so.
 *
 * `--small-caps` runs, instead of the CLI, the same run session in a child of its own
 * (bench/soak-session.ts, the same sampler) with its caps at a tenth of the defaults, which the CLI
 * has no switch for: they fill in about 25 s at 3,000 arrivals/s, so a run of a few minutes shows
 * flat what the default caps reach after about four (a check of everything the caps do not cover).
 *
 *   npm run build && npx tsx bench/soak-memory.ts [minutes=60] [rate=3000] [--max-old-space-size=256] [--flow=run|poll] [--no-compare] [--small-caps]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_RUN_LIMITS } from '../src/core/run-limits.js';
import type { Summary } from '../src/report/summary.js';
import { canPin, startFlowServer } from './runner-bench-setup.js';

const FLAT_HEAP_MB_PER_MIN = 1;
/** A second half's RSS peak may exceed the first half's by this share and still set no new high. */
const RSS_HIGH_MARGIN = 0.05;
const SAMPLE_EVERY_MS = 10_000;
/** Samples a window needs to be judged (a minute of them). */
const MIN_JUDGED = 6;

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const minutes = Number(positional[0] ?? 60);
const rate = Number(positional[1] ?? 3000);
const heapFlag = flags.find((f) => f.startsWith('--max-old-space-size='));
const flow = flags.find((f) => f.startsWith('--flow='))?.slice('--flow='.length) ?? 'run';
const compare = heapFlag !== undefined && !flags.includes('--no-compare');
const smallCaps = flags.includes('--small-caps');
/** What the caps are divided by (bench/soak-session.ts takes a tenth). */
const capsOver = smallCaps ? 10 : 1;
const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli/main.js');
const sessionScript = fileURLToPath(new URL('./soak-session.ts', import.meta.url));

if (!(minutes > 0) || !(rate > 0) || (flow !== 'run' && flow !== 'poll')) {
  console.error(
    'usage: npx tsx bench/soak-memory.ts [minutes=60] [rate=3000] [--max-old-space-size=N] [--flow=run|poll] [--no-compare] [--small-caps]',
  );
  process.exit(2);
}
if (!smallCaps && !existsSync(cli)) {
  console.error(`no ${cli}: run npm run build first`);
  process.exit(2);
}

/** The preload of jobstorm's process: a full collection, then its memory, every 10 s (main thread only). */
const SAMPLER = `import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
const file = process.env.SOAK_SAMPLES;
if (isMainThread && file && typeof globalThis.gc === 'function') {
  const t0 = performance.now();
  setInterval(() => {
    globalThis.gc();
    const m = process.memoryUsage();
    appendFileSync(file, JSON.stringify({ t: (performance.now() - t0) / 1000, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, arrayBuffers: m.arrayBuffers }) + '\\n');
  }, ${String(SAMPLE_EVERY_MS)}).unref();
}
`;

interface Sample {
  /** Seconds since the process started. */
  t: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  arrayBuffers: number;
}

interface Soak {
  label: string;
  code: number | null;
  samples: Sample[];
  summary: Summary | undefined;
  outOfHeap: boolean;
  stderrTail: string;
}

function scenarioYaml(): string {
  const steps =
    flow === 'poll'
      ? `      - run: { input: { prompt: "soak" } }
      - poll: { until: final, interval: 1s, timeout: 30s }`
      : '      - run: { input: { prompt: "soak" } }';
  return `name: soak-memory
target: { connections: 64, maxInFlight: 20000, timeout: 10s }
phases: [{ duration: ${String(Math.round(minutes * 60))}s, rate: ${String(rate)} }]
flows:
  - name: soak-${flow}
    steps:
${steps}
`;
}

/** What the child runs after node's flags: the CLI, or the session with small caps. */
function childArgs(scenario: string, origin: string, out: string): string[] {
  if (smallCaps) return ['--import', 'tsx', sessionScript, scenario, origin, join(out, 'summary.json')];
  return [cli, 'run', scenario, '--target', `${origin}/v2/ep`, '--no-preflight', '--out', out, '--quiet'];
}

async function soak(dir: string, origin: string, label: string, nodeFlags: readonly string[]): Promise<Soak> {
  const name = label.replace(/\W+/g, '-');
  const samplesFile = join(dir, `samples-${name}.ndjson`);
  const out = join(dir, `out-${name}`);
  await mkdir(out, { recursive: true });
  const args = [
    ...nodeFlags,
    '--expose-gc',
    '--import',
    join(dir, 'sampler.mjs'),
    ...childArgs(join(dir, 'soak.yaml'), origin, out),
  ];
  const cmd = canPin ? ['taskset', '-c', '0', process.execPath, ...args] : [process.execPath, ...args];
  console.log(`\n[${label}] ${cmd.join(' ')}`);
  const child = spawn(cmd[0] ?? 'node', cmd.slice(1), {
    cwd: root,
    env: { ...process.env, JOBSTORM_API_KEY: 'bench-key', SOAK_SAMPLES: samplesFile },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-20_000);
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const samples = existsSync(samplesFile)
    ? (await readFile(samplesFile, 'utf8'))
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as Sample)
    : [];
  const file = join(out, 'summary.json');
  const summary = existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as Summary) : undefined;
  return {
    label,
    code,
    samples,
    summary,
    outOfHeap: /heap out of memory|Reached heap limit/i.test(stderr),
    stderrTail: stderr.slice(-1500),
  };
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

/** Least-squares slope of y (bytes) over t (s), in MB a minute. */
function slopeMbPerMin(points: readonly Sample[], y: (s: Sample) => number): number {
  const n = points.length;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const my = points.reduce((a, p) => a + y(p), 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (y(p) - my);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : ((num / den) * 60) / 1e6;
}

function printSeries(s: Soak): void {
  console.log('     s   RSS MB  heap after GC MB  heap total MB  array buffers MB');
  for (const p of s.samples)
    console.log(
      `${p.t.toFixed(0).padStart(6)} ${mb(p.rss).padStart(8)} ${mb(p.heapUsed).padStart(17)} ${mb(p.heapTotal).padStart(14)} ${mb(p.arrayBuffers).padStart(17)}`,
    );
}

/** The seconds after which every cap on jobs is full: the checks' jobs held, then kept in brief. */
function capsFullAtS(): number {
  return (DEFAULT_RUN_LIMITS.checkJobsHeld + DEFAULT_RUN_LIMITS.checkJobsBrief) / capsOver / rate + 10;
}

function memoryVerdict(s: Soak): void {
  const fullAt = capsFullAtS();
  // Samples while the run ran: one taken after its end (the reports written, the run's state let
  // go) reads the heap of a process that is done, and pulled the 60-minute soak's slope below 0.
  const during = s.samples.filter((p) => p.t <= minutes * 60);
  const last = during.at(-1)?.t ?? 0;
  const from = Math.max(fullAt, last / 2);
  const judged = during.filter((p) => p.t >= from);
  const peak = Math.max(...s.samples.map((p) => p.rss));
  console.log(
    `[${s.label}] peak RSS ${mb(peak)} MB; heap after GC ${mb(s.samples[0]?.heapUsed ?? 0)} MB at ${String(Math.round(s.samples[0]?.t ?? 0))} s, ${mb(s.samples.at(-1)?.heapUsed ?? 0)} MB at ${String(Math.round(last))} s`,
  );
  if (judged.length < MIN_JUDGED) {
    const half = during.filter((p) => p.t >= last / 2);
    const note =
      half.length >= 2
        ? `; over the second half (from ${String(Math.round(last / 2))} s, caps still filling): heap ${slopeMbPerMin(half, (p) => p.heapUsed).toFixed(2)} MB/min, RSS ${slopeMbPerMin(half, (p) => p.rss).toFixed(2)} MB/min`
        : '';
    console.log(
      `[${s.label}] memory: NOT JUDGED: the caps are full at about ${String(Math.round(fullAt))} s at ${String(rate)} arrivals/s, and a verdict needs ${String(MIN_JUDGED)} samples after that and after half the run: run at least ${String(Math.ceil((2 * (fullAt + MIN_JUDGED * 10)) / 60))} minutes${note}`,
    );
    return;
  }
  const heap = slopeMbPerMin(judged, (p) => p.heapUsed);
  const rss = slopeMbPerMin(judged, (p) => p.rss);
  const mid = (from + last) / 2;
  const peakOf = (ps: readonly Sample[]): number => Math.max(...ps.map((p) => p.rss));
  const [early, late] = [peakOf(judged.filter((p) => p.t < mid)), peakOf(judged.filter((p) => p.t >= mid))];
  const flat = heap < FLAT_HEAP_MB_PER_MIN;
  const bounded = late <= early * (1 + RSS_HIGH_MARGIN);
  console.log(
    `[${s.label}] memory from ${String(Math.round(from))} s to ${String(Math.round(last))} s (${String(judged.length)} samples): heap after GC ${heap.toFixed(2)} MB/min (flat: < ${String(FLAT_HEAP_MB_PER_MIN)}) ${flat ? 'FLAT' : 'GROWING'}; RSS peak ${mb(early)} MB then ${mb(late)} MB (slope ${rss.toFixed(2)} MB/min) ${bounded ? 'BOUNDED' : 'NEW HIGH'}: ${flat && bounded ? 'PASS' : 'FAIL'}`,
  );
}

function runLine(s: Soak): void {
  const sum = s.summary;
  if (!sum) {
    console.log(
      `[${s.label}] exit ${String(s.code)}${s.outOfHeap ? ': RAN OUT OF HEAP' : ''}, no summary.json\n${s.stderrTail}`,
    );
    return;
  }
  const sent = Object.values(sum.operations).reduce((n, o) => n + o.requests, 0);
  console.log(
    `[${s.label}] exit ${String(s.code)}, verdict ${sum.verdict.status}, ${String(sum.jobs.submitted)} jobs submitted, ${String(sent)} requests, ${String(sum.dropped.total)} dropped, generator-limited ${String(sum.generatorLimited?.length ?? 0)} stretches`,
  );
  for (const c of sum.caps ?? [])
    console.log(
      `[${s.label}]   cap ${c.id}: ${c.limit.toLocaleString('en-US')}, dropped ${c.dropped.toLocaleString('en-US')}`,
    );
}

/** What a verdict is made of, without the counts that differ between two runs of one scenario. */
function verdictKey(s: Summary | undefined): string {
  if (!s) return 'no summary';
  const ids = s.violations.filter((v) => v.count > 0).map((v) => v.id);
  const failed = s.thresholds.filter((t) => !t.ok).map((t) => t.expression);
  return `${s.verdict.status}; violations: ${ids.sort().join(', ') || 'none'}; failed thresholds: ${failed.sort().join(', ') || 'none'}`;
}

const dir = await mkdtemp(join(tmpdir(), 'jobstorm-soak-memory-'));
const server = await startFlowServer(1);
try {
  await writeFile(join(dir, 'sampler.mjs'), SAMPLER);
  await writeFile(join(dir, 'soak.yaml'), scenarioYaml());
  console.log(
    `soak: ${String(minutes)} min at ${String(rate)} arrivals/s, flow ${flow}, every check on, ${smallCaps ? 'the run session with its caps at a tenth (--small-caps)' : "jobstorm's CLI with its default caps"}; ${canPin ? 'jobstorm on CPU 0, server on CPU 1' : 'NOT pinned (taskset unavailable or < 2 CPUs)'}; heap after a forced full GC and RSS every ${String(SAMPLE_EVERY_MS / 1000)} s`,
  );
  const runs: Soak[] = [];
  const first = await soak(
    dir,
    server.origin,
    heapFlag ? `heap ${heapFlag.split('=')[1] ?? ''} MB` : 'default heap',
    heapFlag ? [heapFlag] : [],
  );
  runs.push(first);
  if (compare) runs.push(await soak(dir, server.origin, 'default heap', []));
  for (const s of runs) {
    console.log(`\n[${s.label}] series`);
    printSeries(s);
    runLine(s);
    if (s.samples.length > 0) memoryVerdict(s);
  }
  if (compare) {
    const [a, b] = runs;
    const same = verdictKey(a?.summary) === verdictKey(b?.summary);
    console.log(
      `\nfixed heap: [${a?.label ?? ''}] ${a?.outOfHeap ? 'RAN OUT OF HEAP' : `ran to the end (exit ${String(a?.code)})`}; its verdict (${verdictKey(a?.summary)}) ${same ? 'EQUALS' : 'DIFFERS FROM'} the run without the cap (${verdictKey(b?.summary)}): ${!a?.outOfHeap && same ? 'PASS' : 'FAIL'}`,
    );
  }
} finally {
  server.stop();
  await rm(dir, { recursive: true, force: true });
}
