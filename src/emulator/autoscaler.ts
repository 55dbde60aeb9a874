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

/**
 * SPEC "policy object" and DESIGN.md: an endpoint's workers scale up on queue depth (lowPriority
 * jobs do not count) while workersMax allows, and a worker idle for idleTimeout stops while more
 * than workersMin remain. One per endpoint, over every kind of worker.
 */
export class Autoscaler {
  constructor(
    readonly settings: ScalingSettings,
    /** Queued jobs that count for scaling: all but lowPriority ones. */
    private readonly demand: () => number,
  ) {}

  /** Starts workers while queued jobs outnumber the workers on their way, up to workersMax. */
  scaleUp(fleet: Fleet): void {
    const want = this.demand() - fleet.coming();
    const room = this.settings.workersMax - fleet.live();
    for (let i = 0; i < Math.min(want, room); i++) fleet.startOne();
  }

  /** Whether one of `live` workers may stop: never below workersMin. */
  mayRetire(live: number): boolean {
    return live > this.settings.workersMin;
  }

  /** Whether a worker idle for `idleMs` has idled out. */
  idledOut(idleMs: number): boolean {
    return idleMs >= this.settings.idleTimeoutMs;
  }
}
