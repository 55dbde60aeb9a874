import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkerLauncher } from './external-pool.js';
import type { WorkerProcess } from './worker-process.js';

/** A started worker: its process and when SIGKILL follows a SIGTERM. */
interface Running {
  child: ChildProcess;
  exited: Promise<void>;
  killTimer: NodeJS.Timeout | undefined;
}

/** One line per started process, for the run's report and the no-leftover-process check. */
export interface LaunchRecord {
  workerId: string;
  pid: number | undefined;
  log: string;
}

/**
 * Starts worker processes through `/bin/sh -c` in a process group of their own (so a worker's own
 * children, e.g. the worker library's heartbeat process, are stopped with it), with stdout and
 * stderr appended to `<logDir>/<workerId>.log`. Stopping is SIGTERM to the group, then SIGKILL
 * after `stopGraceMs`.
 */
export class ProcessLauncher implements WorkerLauncher {
  private readonly running = new Map<string, Running>();
  readonly launched: LaunchRecord[] = [];

  constructor(
    private readonly spec: WorkerProcess,
    /** RUNPOD_* of the endpoint; RUNPOD_POD_ID is added per worker. */
    private readonly workerEnv: Record<string, string>,
    private readonly exited: (workerId: string, code: number | null) => void,
  ) {
    mkdirSync(spec.logDir, { recursive: true });
  }

  start(workerId: string): void {
    const log = join(this.spec.logDir, `${workerId}.log`);
    const fd = openSync(log, 'a');
    let child: ChildProcess;
    try {
      child = spawn('/bin/sh', ['-c', this.spec.command], {
        cwd: this.spec.cwd,
        env: { ...this.spec.env, ...this.workerEnv, RUNPOD_POD_ID: workerId },
        stdio: ['ignore', fd, fd],
        detached: true,
      });
    } finally {
      closeSync(fd);
    }
    this.launched.push({ workerId, pid: child.pid, log });
    const entry: Running = {
      child,
      killTimer: undefined,
      exited: new Promise<void>((resolve) => {
        child.once('error', () => {
          this.gone(workerId, null);
          resolve();
        });
        child.once('exit', (code) => {
          this.gone(workerId, code);
          resolve();
        });
      }),
    };
    this.running.set(workerId, entry);
  }

  stop(workerId: string): void {
    const entry = this.running.get(workerId);
    if (entry === undefined || entry.killTimer !== undefined) return;
    signalGroup(entry.child, 'SIGTERM');
    entry.killTimer = setTimeout(() => signalGroup(entry.child, 'SIGKILL'), this.spec.stopGraceMs);
  }

  /** Stops every process (SIGTERM, SIGKILL after the grace) and resolves once all have exited. */
  async close(): Promise<void> {
    const waits = [...this.running.entries()].map(([id, entry]) => {
      this.stop(id);
      return entry.exited;
    });
    await Promise.all(waits);
  }

  private gone(workerId: string, code: number | null): void {
    const entry = this.running.get(workerId);
    if (entry === undefined) return;
    // The group may outlive its leader (a worker's children): make sure nothing of it stays.
    signalGroup(entry.child, 'SIGKILL');
    if (entry.killTimer !== undefined) clearTimeout(entry.killTimer);
    this.running.delete(workerId);
    this.exited(workerId, code);
  }
}

/** Signals the child's whole process group (it leads one: spawned detached). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  try {
    // A negative pid addresses the group; `kill` of node:child_process cannot, so this goes
    // through the kill(1) utility rather than our own process object.
    const k = spawn('kill', [`-${signal.replace('SIG', '')}`, '--', `-${String(pid)}`], { stdio: 'ignore' });
    k.on('error', () => child.kill(signal));
  } catch {
    child.kill(signal);
  }
}
