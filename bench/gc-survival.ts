/**
 * What jobstorm leaves to the garbage collector, beside the bare undici Pool generator, on the
 * flow of bench/engine-vs-peers.ts (POST /run, then one GET /status): each runs on CPU 0 under
 * `node --trace-gc-nvp` against the bare flow server on CPU 1, and the scavenges after the
 * warm-up are summed.
 *
 * Why: at 8,000 requests/s the p99 of issue 17's goal 2 is set by scavenge pauses, and a
 * scavenge costs what survives it (copied within the young generation or promoted to the old),
 * not what was allocated. Survival is a property of the code, so unlike latency on this shared
 * VM it reads the same from run to run: it is the figure to watch when changing the hot path.
 * Printed per generator: scavenges, mean and p99 pause, KB allocated, survived and promoted per
 * scavenge, and the same per 1,000 requests.
 *
 *   npm run build && npx tsx bench/gc-survival.ts [rate=1000 arrivals/s] [seconds=8] [warmup=2]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../src/report/summary.js';
import {
  canPin,
  percentile,
  runStatusScenarioYaml,
  startFlowServer,
  transpilePool,
} from './runner-bench-setup.js';

const rate = Number(process.argv[2] ?? 1000);
const seconds = Number(process.argv[3] ?? 8);
const warmup = Number(process.argv[4] ?? 2);
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!(rate > 0) || !(seconds > warmup) || !(warmup >= 0)) {
  console.error('usage: npx tsx bench/gc-survival.ts [rate=1000] [seconds=8] [warmup=2] (seconds > warmup)');
  process.exit(2);
}
if (!existsSync(cli)) {
  console.error('needs a build: npm run build');
  process.exit(2);
}

interface Scavenges {
  count: number;
  pauses: number[];
  allocated: number;
  survived: number;
  promoted: number;
}

/** Scavenges (gc=s) from --trace-gc-nvp output that began at or after `fromMs` of the process. */
export function scavengesOf(trace: string, fromMs: number): Scavenges {
  const out: Scavenges = { count: 0, pauses: [], allocated: 0, survived: 0, promoted: 0 };
  for (const line of trace.split('\n')) {
    if (!line.includes(' gc=s ')) continue;
    const at = /\]\s+(\d+) ms:/.exec(line);
    if (!at || Number(at[1]) < fromMs) continue;
    const field = (name: string): number =>
      Number(new RegExp(`(?:^|\\s)${name}=([\\d.]+)`).exec(line)?.[1] ?? Number.NaN);
    out.count++;
    out.pauses.push(field('pause'));
    out.allocated += field('allocated');
    out.survived += field('new_space_survived');
    out.promoted += field('promoted');
  }
  return out;
}

function traced(args: string[]): Promise<string> {
  const cmd = [...(canPin ? ['taskset', '-c', '0'] : []), process.execPath, '--trace-gc-nvp', ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0] ?? '', cmd.slice(1), {
      env: { ...process.env, JOBSTORM_API_KEY: 'bench-key' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    // jobstorm's verdict sets the exit code; only a missing summary (checked by the caller) is a failure.
    child.once('close', () => resolve(out));
  });
}

const server = await startFlowServer(1);
const dir = await mkdtemp(join(tmpdir(), 'jobstorm-gc-'));
try {
  const poolJs = await transpilePool(dir);
  const scenario = join(dir, 'gc.yaml');
  await writeFile(scenario, runStatusScenarioYaml('gc-survival', rate, seconds, warmup));
  // The trace's times are from process start; start-up takes a few hundred ms before time 0.
  const fromMs = warmup * 1000 + 500;
  const rows: [string, Scavenges, number][] = [];
  const poolTrace = await traced([poolJs, server.origin, String(rate), String(seconds), String(warmup)]);
  const poolRequests =
    (
      JSON.parse(
        poolTrace
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .pop() ?? '{}',
      ) as { requests?: number }
    ).requests ?? Number.NaN;
  rows.push(['pool', scavengesOf(poolTrace, fromMs), poolRequests]);
  for (const check of [true, false]) {
    const out = join(dir, `out-${String(check)}`);
    const trace = await traced([
      cli,
      'run',
      scenario,
      '--target',
      `${server.origin}/v2/ep`,
      '--no-preflight',
      '--out',
      out,
      '--quiet',
      ...(check ? [] : ['--no-check']),
    ]);
    if (!existsSync(join(out, 'summary.json')))
      throw new Error(`jobstorm wrote no summary.json:\n${trace.slice(-2000)}`);
    const s = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as Summary;
    const requests = Object.values(s.operations).reduce((n, o) => n + o.requests, 0);
    rows.push([check ? 'jobstorm' : 'jobstorm --no-check', scavengesOf(trace, fromMs), requests]);
  }
  console.log(
    `gc survival: ${String(rate)} arrivals/s (${String(rate * 2)} req/s), ${String(seconds)} s, scavenges after ${String(warmup)} s of warm-up`,
  );
  console.log(
    'generator            | scav | pause mean | pause p99 | alloc KB/scav | survived KB/scav | promoted KB/scav | survived+promoted KB per 1k req',
  );
  for (const [name, g, requests] of rows) {
    const mean = g.pauses.reduce((a, b) => a + b, 0) / Math.max(1, g.count);
    const kb = (b: number): string => (b / 1024 / Math.max(1, g.count)).toFixed(0).padStart(6);
    // Requests measured after the warm-up, against bytes of the scavenges after it.
    const perK = ((g.survived + g.promoted) / 1024 / (requests / 1000)).toFixed(1);
    console.log(
      `${name.padEnd(20)} | ${String(g.count).padStart(4)} | ${mean.toFixed(2).padStart(7)} ms | ${percentile(g.pauses, 99).toFixed(2).padStart(6)} ms | ${kb(g.allocated)}        | ${kb(g.survived)}           | ${kb(g.promoted)}           | ${perK}`,
    );
  }
} finally {
  server.stop();
  await rm(dir, { recursive: true, force: true });
}
