import { gammaProcess } from './gamma-process.js';
import { arrivalProcess, type ArrivalProcess, type PointSequence } from './arrival-process.js';
import type { PhaseShape, TraceShape } from './phase-shape.js';
import { deriveSeed } from './prng.js';
import { rateCurve, type RateCurve } from './rate-curve.js';
import { assertShard, type Shard } from './shard.js';
import { TraceCursor, type TraceArrivalRow, type TraceTimes, type TraceTimesOf } from './trace-times.js';

/*
 * Stages: phases one after another, each starting where the previous ended. A pure function of
 * elapsed time: the intended start of every arrival is known in advance, so the runner never
 * accumulates drift and the tests need no timers (DESIGN rule 3).
 */

/** One scheduled arrival: its global index (across shards) and intended start, ms from run start. */
export interface Arrival {
  readonly index: number;
  readonly atMs: number;
  readonly phase: number;
  /** A trace phase's row, whose sizes shape the request. */
  readonly trace?: TraceArrivalRow;
}

/** Where a phase sits in the run. Closed-model (vus) phases have no arrivals; the runner fills them. */
export interface PhaseWindow {
  readonly phase: number;
  readonly kind: PhaseShape['kind'];
  readonly startMs: number;
  readonly endMs: number;
  /** Global index of the phase's first arrival. */
  readonly firstIndex: number;
  /** Arrivals in the phase, across all shards. */
  readonly count: number;
}

/** Vegeta-style answer: wait this long before the next arrival, or stop. */
export interface Pace {
  readonly waitMs: number;
  readonly done: boolean;
}

export interface ScheduleOptions {
  /** An `ArrivalProcess` or a registered name; default `uniform`. */
  readonly process?: string | ArrivalProcess;
  readonly seed?: number;
  /** The shape of `gamma`'s gaps (gamma-process.ts); default 1, a Poisson process. */
  readonly burstiness?: number;
  /** Keep only this shard's arrivals (see `shard`). */
  readonly shard?: Shard;
  /** The rows of the trace phases (the runner opens the files; this layer reads none). */
  readonly traces?: TraceTimesOf;
}

interface OpenPlan {
  readonly window: PhaseWindow;
  readonly curve: RateCurve;
  readonly seed: number;
}

interface TracePlan {
  readonly window: PhaseWindow;
  readonly times: TraceTimes;
  readonly timeScale: number;
}

type Plan = OpenPlan | TracePlan;

function isTracePlan(plan: Plan): plan is TracePlan {
  return 'times' in plan;
}

/** A trace phase's arrival n (0-based, across its loops): its time from the phase start and row. */
function tracePoint(
  plan: TracePlan,
  n: number,
  cursor: TraceCursor,
): { atMs: number; trace: TraceArrivalRow } | undefined {
  const { times, timeScale } = plan;
  const pass = Math.floor(n / times.count);
  const point = cursor.at(n - pass * times.count);
  if (point === undefined) return undefined;
  return { atMs: (pass * times.passMs + point.offsetMs) / timeScale, trace: point.row };
}

function traceWindow(
  phase: number,
  shape: TraceShape,
  times: TraceTimes,
  startMs: number,
  firstIndex: number,
): PhaseWindow {
  const loops = Math.max(1, shape.loops);
  const lengthMs = ((loops - 1) * times.passMs + times.endMs) / shape.timeScale;
  return { phase, kind: 'trace', startMs, endMs: startMs + lengthMs, firstIndex, count: times.count * loops };
}

/** Generates a phase's points on demand, restarting only if asked to go backwards. */
class PointCursor {
  private seq: PointSequence;
  private n = -1;
  private value = 0;

  constructor(
    private readonly process: ArrivalProcess,
    private readonly seed: number,
  ) {
    this.seq = this.process.start(seed);
  }

  at(n: number): number {
    if (this.process.pointAt !== undefined) return this.process.pointAt(n, this.seed);
    if (n < this.n) {
      this.seq = this.process.start(this.seed);
      this.n = -1;
    }
    while (this.n < n) {
      this.value = this.seq.next();
      this.n++;
    }
    return this.value;
  }
}

function countBelow(arrivals: ArrivalProcess, limit: number, seed: number): number {
  if (arrivals.countBelow !== undefined) return arrivals.countBelow(limit, seed);
  const seq = arrivals.start(seed);
  let n = 0;
  while (seq.next() < limit) n++;
  return n;
}

export class ArrivalSchedule {
  readonly windows: readonly PhaseWindow[];
  /** End of the last phase, ms from run start. */
  readonly durationMs: number;
  /** Arrivals this schedule yields (this shard's share when sharded). */
  readonly total: number;
  /** Arrivals of the whole, unsharded run. */
  readonly globalTotal: number;

  private readonly plans: readonly (Plan | undefined)[];
  private readonly process: ArrivalProcess;
  private readonly cursors = new Map<number, PointCursor>();
  private readonly traceCursors = new Map<number, TraceCursor>();

  constructor(
    private readonly phases: readonly PhaseShape[],
    private readonly options: ScheduleOptions = {},
  ) {
    if (options.shard !== undefined) assertShard(options.shard);
    this.process =
      typeof options.process === 'object'
        ? options.process
        : options.process === 'gamma' && options.burstiness !== undefined
          ? gammaProcess(options.burstiness)
          : arrivalProcess(options.process ?? 'uniform');
    const seed = options.seed ?? 1;
    const windows: PhaseWindow[] = [];
    const plans: (Plan | undefined)[] = [];
    let startMs = 0;
    let firstIndex = 0;
    phases.forEach((phase, i) => {
      if (phase.kind === 'trace') {
        const times = options.traces?.(i);
        if (times === undefined)
          throw new Error(`phase ${String(i + 1)} replays a trace, but no trace rows were given`);
        const window = traceWindow(i, phase, times, startMs, firstIndex);
        windows.push(window);
        plans.push({ window, times, timeScale: phase.timeScale });
      } else if (phase.kind === 'vus') {
        windows.push({
          phase: i,
          kind: phase.kind,
          startMs,
          endMs: startMs + phase.durationMs,
          firstIndex,
          count: 0,
        });
        plans.push(undefined);
      } else {
        const curve = rateCurve(phase);
        const phaseSeed = deriveSeed(seed, i);
        const count =
          phase.kind === 'count' ? phase.count : countBelow(this.process, curve.expected, phaseSeed);
        // A count phase ends where its next arrival would have been: count / rate for even pacing.
        const length =
          phase.kind === 'count'
            ? curve.timeAt(new PointCursor(this.process, phaseSeed).at(count))
            : phase.durationMs;
        const window = { phase: i, kind: phase.kind, startMs, endMs: startMs + length, firstIndex, count };
        windows.push(window);
        plans.push({ window, curve, seed: phaseSeed });
      }
      startMs = windows[i]?.endMs ?? startMs;
      firstIndex += windows[i]?.count ?? 0;
    });
    this.windows = windows;
    this.plans = plans;
    this.durationMs = startMs;
    this.globalTotal = firstIndex;
    const s = options.shard;
    this.total =
      s === undefined ? firstIndex : Math.max(0, Math.ceil((firstIndex - (s.index - 1)) / s.count));
  }

  /** Every arrival in time order (within a phase; phases follow each other). */
  *arrivals(): Generator<Arrival> {
    const s = this.options.shard;
    for (const plan of this.plans) {
      if (plan === undefined) continue;
      if (isTracePlan(plan)) {
        yield* this.traceArrivals(plan);
        continue;
      }
      const { window, curve, seed } = plan;
      const seq = this.process.start(seed);
      for (let n = 0; n < window.count; n++) {
        // Every point is drawn, kept or not, so that each shard sees the same sequence.
        const point = seq.next();
        const index = window.firstIndex + n;
        if (s !== undefined && index % s.count !== s.index - 1) continue;
        yield { index, atMs: window.startMs + curve.timeAt(point), phase: window.phase };
      }
    }
  }

  private *traceArrivals(plan: TracePlan): Generator<Arrival> {
    const s = this.options.shard;
    const { window } = plan;
    const cursor = new TraceCursor(plan.times);
    for (let n = 0; n < window.count; n++) {
      // Every row is read, kept or not, so that each shard sees the same rows at the same indexes.
      const point = tracePoint(plan, n, cursor);
      if (point === undefined) return;
      const index = window.firstIndex + n;
      if (s !== undefined && index % s.count !== s.index - 1) continue;
      yield { index, atMs: window.startMs + point.atMs, phase: window.phase, trace: point.trace };
    }
  }

  [Symbol.iterator](): Generator<Arrival> {
    return this.arrivals();
  }

  /** The arrival this schedule yields as its `hit`-th (0-based), without generating the others. */
  arrival(hit: number): Arrival | undefined {
    if (!Number.isInteger(hit) || hit < 0 || hit >= this.total) return undefined;
    const s = this.options.shard;
    const index = s === undefined ? hit : s.index - 1 + hit * s.count;
    const plan = this.planOf(index);
    if (plan === undefined) return undefined;
    if (isTracePlan(plan)) return this.traceArrival(plan, index);
    const { window, curve, seed } = plan;
    let cursor = this.cursors.get(window.phase);
    if (cursor === undefined) {
      cursor = new PointCursor(this.process, seed);
      this.cursors.set(window.phase, cursor);
    }
    return {
      index,
      atMs: window.startMs + curve.timeAt(cursor.at(index - window.firstIndex)),
      phase: window.phase,
    };
  }

  private traceArrival(plan: TracePlan, index: number): Arrival | undefined {
    const { window } = plan;
    let cursor = this.traceCursors.get(window.phase);
    if (cursor === undefined) {
      cursor = new TraceCursor(plan.times);
      this.traceCursors.set(window.phase, cursor);
    }
    const point = tracePoint(plan, index - window.firstIndex, cursor);
    if (point === undefined) return undefined;
    return { index, atMs: window.startMs + point.atMs, phase: window.phase, trace: point.trace };
  }

  /**
   * Given the elapsed time and how many arrivals were already started, how long to wait for the
   * next one (0 when it is due or late), or `done` when there are no more.
   */
  pace(elapsedMs: number, hits: number): Pace {
    const next = this.arrival(hits);
    return next === undefined
      ? { waitMs: 0, done: true }
      : { waitMs: Math.max(0, next.atMs - elapsedMs), done: false };
  }

  /** The arrivals whose global index ≡ index−1 (mod count): shards 1..count together are this schedule. */
  shard(index: number, count: number): ArrivalSchedule {
    if (this.options.shard !== undefined) throw new Error('this schedule is already a shard');
    return new ArrivalSchedule(this.phases, { ...this.options, shard: { index, count } });
  }

  private planOf(index: number): Plan | undefined {
    let lo = 0;
    let hi = this.plans.length - 1;
    // Binary search over phases by first index; vus phases (no plan, no arrivals) are skipped.
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const w = this.windows[mid];
      if (w === undefined) return undefined;
      if (index < w.firstIndex) hi = mid - 1;
      else if (index >= w.firstIndex + w.count) lo = mid + 1;
      else return this.plans[mid];
    }
    return undefined;
  }
}

/** Stages: a schedule of `phases` run one after another. */
export function arrivalSchedule(
  phases: readonly PhaseShape[],
  options: ScheduleOptions = {},
): ArrivalSchedule {
  return new ArrivalSchedule(phases, options);
}
