import type { EmulatorPolicy } from './policy/policy.js';

export interface ScalingSettings {
  workersMin: number;
  workersMax: number;
  idleTimeoutMs: number;
  /** How long a simulated worker takes to start (a real one takes what its process takes). */
  coldStartMs: number;
}

/** What the autoscaler sees of one kind of worker, and asks of it. */
export interface Fleet {
  /** Workers alive and not being stopped: what workersMax bounds. */
  live(): number;
  /** Workers that will take a queued job without another starting: starting ones, and idle ones. */
  coming(): number;
  /** Starts one more worker, which is cold for a while. */
  startOne(): void;
}

/** The endpoint's queue as scaling sees it. */
export interface QueueDepth {
  /** Queued jobs that are not lowPriority. */
  normal(): number;
  /** Every queued job. */
  all(): number;
}

/**
 * SPEC "policy object" and DESIGN.md: an endpoint's workers scale up on queue depth (lowPriority
 * jobs do not count) while workersMax allows, and a worker idle for idleTimeout stops while more
 * than workersMin remain. One per endpoint, over every kind of worker. The decisions go through the
 * policy, read anew each time (faults change it while the emulator runs).
 */
export class Autoscaler {
  constructor(
    readonly settings: ScalingSettings,
    private readonly queue: QueueDepth,
    private readonly policy: () => EmulatorPolicy,
  ) {}

  /** Starts workers while queued jobs outnumber the workers on their way, up to workersMax. */
  scaleUp(fleet: Fleet): void {
    const p = this.policy();
    const want = p.scalingDemand(this.queue.normal(), this.queue.all()) - fleet.coming();
    const room = p.workerCap(this.settings.workersMax) - fleet.live();
    for (let i = 0; i < Math.min(want, room); i++) fleet.startOne();
  }

  /** Whether one of `live` workers may stop: never below workersMin. */
  mayRetire(live: number): boolean {
    return live > this.settings.workersMin && this.policy().scalesDown();
  }

  /** Whether a worker idle for `idleMs` has idled out. */
  idledOut(idleMs: number): boolean {
    return idleMs >= this.settings.idleTimeoutMs;
  }
}
