/**
 * Shared set-up of the client and blast benches: the target server in a child process on its
 * own core, this process on another (perf-anchors.md: server on CPU 1, generator on CPU 0).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
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

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}
