import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkerLauncher } from './external-pool.js';
import type { ProcessGroups } from './process-groups.js';
import type { WorkerProcess } from './worker-process.js';

/** A program and plain arguments: nothing the shell would interpret beyond splitting words. */
const SIMPLE_COMMAND = /^[\w@%+=:,./-][\w@%+=:,./ -]*$/;

/** A started worker: its process and when SIGKILL follows a SIGTERM. */
interface Running {
  child: ChildProcess;
  exited: Promise<void>;
  killTimer: NodeJS.Timeout | undefined;
}

/** One line per started process, for the run's report and the no-leftover-process check. */
export interface LaunchRecord {
  workerId: string;
  /** The shell's pid, which is also the id of the process group every worker process is in. */
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
  private readonly launched: LaunchRecord[] = [];

  constructor(
    private readonly spec: WorkerProcess,
    /** RUNPOD_* of the endpoint; RUNPOD_POD_ID is added per worker. */
    private readonly workerEnv: Record<string, string>,
    private readonly exited: (workerId: string, code: number | null) => void,
    /** Shared with the owner, who kills what is listed there when it must quit at once. */
    private readonly groups?: ProcessGroups,
  ) {
    mkdirSync(spec.logDir, { recursive: true });
  }

  start(workerId: string): void {
    // jobstorm is quitting at once and has killed the groups it knew: start nothing after that.
    if (this.groups?.isClosed() === true) return;
    const log = join(this.spec.logDir, `${workerId}.log`);
    const sink = createWriteStream(log, { flags: 'a' });
    sink.on('error', () => undefined);
    // A plain command replaces the shell (exec), so its pid and exit code are the worker's own.
    const line = SIMPLE_COMMAND.test(this.spec.command) ? `exec ${this.spec.command}` : this.spec.command;
    const child = spawn('/bin/sh', ['-c', line], {
      cwd: this.spec.cwd,
      env: { ...this.spec.env, ...this.workerEnv, RUNPOD_POD_ID: workerId },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    // Through pipes, not a file descriptor: 'close' comes only once every process holding them
    // (the shell, the worker, the worker's own children) has exited, not when the shell alone does.
    child.stdout.pipe(sink, { end: false });
    child.stderr.pipe(sink, { end: false });
    this.launched.push({ workerId, pid: child.pid, log });
    if (child.pid !== undefined) this.groups?.add(child.pid);
    // Closed between the check above and the add: the forced exit may have read the groups before
    // this one was in them, so this thread kills it (as far as it gets before the exit ends it).
    if (this.groups?.isClosed() === true) signalGroup(child, 'SIGKILL');
    const entry: Running = {
      child,
      killTimer: undefined,
      exited: new Promise<void>((resolve) => {
        let code: number | null = null;
        child.once('exit', (c) => (code = c));
        const end = (): void => {
          sink.end();
          this.gone(workerId, code);
          resolve();
        };
        child.once('error', end);
        child.once('close', end);
      }),
    };
    this.running.set(workerId, entry);
  }

  processes(): readonly LaunchRecord[] {
    return this.launched;
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
    if (entry.child.pid !== undefined) this.groups?.remove(entry.child.pid);
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
