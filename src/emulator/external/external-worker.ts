import type { Job } from '../job.js';

/** What a real worker did, as its report shows it (workers.json, /_emulator/endpoints/:id/workers). */
export interface ExternalWorkerStats {
  id: string;
  state: ExternalWorkerState;
  /** Emulator time the process was started (launched workers only), else -1. */
  spawnedAt: number;
  firstSeenAt: number;
  firstTakeAt: number;
  /** spawn → first take, ms (-1 when not launched by us or never took a job). */
  coldStartMs: number;
  lastSeenAt: number;
  taken: number;
  completed: number;
  failed: number;
  progressUpdates: number;
  streamChunks: number;
  /** Sum of take → result over the jobs it finished, ms. */
  handlerMs: number;
  /** Stops sent through the stop channel (cancel, executionTimeout, ttl, purge). */
  stopsSent: number;
  /** Results that arrived for a job already stopped under this worker (ignored). */
  lateResults: number;
  /** Results refused: never taken, already final, taken by another worker, malformed. */
  rejectedResults: number;
  /** Jobs it held when it was declared dead (their heartbeats stopped). */
  lostJobs: number;
  exitCode?: number | null;
}

export type ExternalWorkerState = 'initializing' | 'idle' | 'running' | 'stopping' | 'dead' | 'exited';

/** Ids of stopped jobs a worker remembers, to tell a late result from a hostile one. */
const STOPPED_MEMORY = 4096;

/** One real worker process as the queue sees it: known by the id in its URLs (`$RUNPOD_POD_ID`). */
export class ExternalWorker {
  /** Running jobs and the cancel of each one's executionTimeout timer. */
  readonly jobs = new Map<Job, () => void>();
  /** Job ids to send on the stop channel. */
  pendingStops: string[] = [];
  private readonly stoppedIds = new Set<string>();
  /** Take and stop long-polls held open right now: an open connection is a live worker. */
  openPolls = 0;
  /** Launched by us and not yet heard from. */
  launched = false;
  /** Scale-down sent it SIGTERM: it gets no new jobs. */
  stopping = false;
  gone: 'dead' | 'exited' | undefined = undefined;
  /** When it last had nothing to do (idle timeout counts from here). */
  idleSince: number;
  readonly stats: ExternalWorkerStats;

  constructor(
    readonly id: string,
    now: number,
    launched: boolean,
  ) {
    this.launched = launched;
    this.idleSince = now;
    this.stats = {
      id,
      state: launched ? 'initializing' : 'idle',
      spawnedAt: launched ? now : -1,
      firstSeenAt: launched ? -1 : now,
      firstTakeAt: -1,
      coldStartMs: -1,
      lastSeenAt: launched ? -1 : now,
      taken: 0,
      completed: 0,
      failed: 0,
      progressUpdates: 0,
      streamChunks: 0,
      handlerMs: 0,
      stopsSent: 0,
      lateResults: 0,
      rejectedResults: 0,
      lostJobs: 0,
    };
  }

  get state(): ExternalWorkerState {
    if (this.gone !== undefined) return this.gone;
    if (this.stopping) return 'stopping';
    if (this.launched && this.stats.firstSeenAt < 0) return 'initializing';
    return this.jobs.size > 0 ? 'running' : 'idle';
  }

  seen(now: number): void {
    if (this.stats.firstSeenAt < 0) this.stats.firstSeenAt = now;
    this.stats.lastSeenAt = now;
  }

  tookFirst(now: number): void {
    if (this.stats.firstTakeAt >= 0) return;
    this.stats.firstTakeAt = now;
    if (this.stats.spawnedAt >= 0) this.stats.coldStartMs = now - this.stats.spawnedAt;
  }

  rememberStopped(jobId: string): void {
    if (this.stoppedIds.size >= STOPPED_MEMORY) {
      const oldest = this.stoppedIds.values().next();
      if (oldest.done !== true) this.stoppedIds.delete(oldest.value);
    }
    this.stoppedIds.add(jobId);
  }

  wasStopped(jobId: string): boolean {
    return this.stoppedIds.has(jobId);
  }

  snapshot(): ExternalWorkerStats {
    return { ...this.stats, state: this.state };
  }
}
