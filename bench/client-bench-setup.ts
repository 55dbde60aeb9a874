/**
 * Shared set-up of the client and blast benches: the target server in a child process on its
 * own core, this process on another (perf-anchors.md: server on CPU 1, generator on CPU 0).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

export interface BenchServer {
  url: string;
  stop: () => void;
  pinned: boolean;
}

const canPin = existsSync('/usr/bin/taskset') && availableParallelism() >= 2;

/** Moves every thread of this process to CPU 0, when the machine allows it. */
export function pinSelf(): boolean {
  if (!canPin) return false;
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  return true;
}

export async function startBenchServer(): Promise<BenchServer> {
  const script = fileURLToPath(new URL('./client-bare-server.ts', import.meta.url));
  const args = ['--import', 'tsx', script];
  const child: ChildProcess = canPin
    ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM'), pinned: canPin };
}

/** CPU time of this process in microseconds, user plus system. */
export function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/**
 * Moves only this process's main thread (its event loop) to CPU 0, when the machine allows it.
 * V8's helper threads (the parallel scavenger, concurrent marking and compilers) stay free to run
 * on either CPU, as they do in a `jobstorm run` nobody pinned: with every thread on CPU 0 the
 * event loop waited on the run queue behind them (150–315 ms of a 10 s replay, ~250 preemptions;
 * /proc/self/task/PID/schedstat), a contention no user's run has.
 */
export function pinEventLoop(): boolean {
  if (!canPin) return false;
  execFileSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  return true;
}

/** How long this process's main thread has waited on a run queue for a CPU, in ms (Linux). */
export function runQueueWaitMs(): number | undefined {
  try {
    const fields = readFileSync(`/proc/self/task/${String(process.pid)}/schedstat`, 'utf8').split(' ');
    return Number(fields[1]) / 1e6;
  } catch {
    return undefined;
  }
}

/** The machine's CPU time so far, all CPUs, in clock ticks: in total and stolen by the hypervisor. */
export interface HostTicks {
  total: number;
  steal: number;
}

/** From /proc/stat's `cpu` line (`cpuN`'s with `cpu`); undefined where there is none (not Linux). */
export function hostTicks(cpu?: number): HostTicks | undefined {
  const name = cpu === undefined ? 'cpu ' : `cpu${String(cpu)} `;
  let line: string | undefined;
  try {
    line = readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(name));
  } catch {
    return undefined;
  }
  if (line === undefined) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is already in user).
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (f.length < 8 || f.some((x) => !Number.isFinite(x))) return undefined;
  return { total: f.reduce((a, b) => a + b, 0), steal: f[7] ?? 0 };
}

/**
 * The share of the machine's CPU time the hypervisor took between two readings, 0..1. On a shared
 * VM it is what makes one run's latencies differ from the next: figures from a run with a few
 * percent of steal say more about the host than about the code.
 */
export function stealShare(before: HostTicks | undefined, after: HostTicks | undefined): number | undefined {
  if (!before || !after || after.total <= before.total) return undefined;
  return (after.steal - before.steal) / (after.total - before.total);
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}
