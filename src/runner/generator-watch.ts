import {
  monitorEventLoopDelay,
  performance,
  type EventLoopUtilization,
  type IntervalHistogram,
} from 'node:perf_hooks';
import type { Clock } from '../core/clock.js';
import { starvedOfCpu, type CpuReading } from '../core/cpu-starvation.js';
import { RECORD_VERSION, type ExchangeRecord, type GeneratorRecord } from '../core/record.js';
import { ConnectionOpenings } from './connection-openings.js';
import { Lateness } from './lateness.js';

/** What one second of the generator's own process looked like. */
export interface GeneratorSample {
  /** Event-loop utilisation over the second, 0..1: the share of it the loop spent running code. */
  busy: number;
  /** Event-loop delay p99 over the second, ms: how late a callback ready to run got to run. */
  loopDelayP99Ms: number;
  /** Event-loop delay p50 over the second, ms: late most of the time, not in one pause. */
  loopDelayP50Ms?: number;
  /**
   * CPU the whole process got over the second, in cores (CPU time ÷ wall time; GC threads count),
   * when the owner gave a way to read it. Low while work waits: the machine withheld the CPU.
   */
  cpuShare?: number;
}

/** Reads the process's event loop; injected so a test can play a saturated second. */
export interface GeneratorProbe {
  /** The second since the previous call. */
  sample(): GeneratorSample;
  close(): void;
}

/** The whole run's figures, for summary.json `run.generator` (and the benches). */
export interface GeneratorFigures {
  /** Arrivals: send − intended, p99 over the run. */
  latenessP99Ms: number;
  /** Highest per-second event-loop delay p99. */
  loopDelayP99Ms: number;
  /** Highest per-second event-loop utilisation, 0..1. */
  busyMax: number;
}

/**
 * A second is generator-limited when the loop was nearly always busy AND work waited for it:
 * callbacks ran late, or arrivals left late. Either alone is not enough: a busy loop that keeps up
 * is a well-used generator, and a single late callback on an idle loop is a GC pause.
 */
const BUSY = 0.9;
const LOOP_DELAY_MS = 10;
/** An arrival this late counts as late; a second with more than LATE_SHARE of them late is behind. */
const LATE_MS = 10;
const LATE_SHARE = 0.01;
/** Seconds in a row before it is a stretch worth a warning and a report line (one slow GC is not). */
const SUSTAINED_S = 2;
/**
 * Unless arrivals left late in it: then one second is enough (issue 35). Latency counts from the
 * intended time, so arrivals jobstorm sent late carry its own delay in their latency, and one such
 * second at the start (a cold engine) is enough to make a short run's p99 jobstorm's. Late by the
 * generator, not by a timer's jitter: more than LATE_SHARE of the second's arrivals, at least
 * LATE_ALONE of them, while jobstorm's own work kept its loop busy (or it was starved of CPU):
 * a loaded machine's steal, with the loop mostly idle, is not jobstorm's.
 */
const LATE_ALONE = 5;
/**
 * Starved: jobstorm had work waiting (callbacks this late, most arrivals late) yet ran less than
 * half a core. A CPU quota (a small pod, a CI runner's cgroup), other processes or the host took
 * the CPU. Its loop need not look busy then: stopped while it waits for I/O, it counts as idle (at
 * 10% of a core and 100 arrivals/s it was 15-40% busy, with 80% of arrivals late). Most arrivals
 * late, second after second, is far beyond what a GC pause or a noisy VM's steal does, so a quiet
 * run on a loaded machine is not marked. Closed-model runs have no arrival lateness to judge by (see below).
 */
const STARVED_DELAY_MS = 50;
const STARVED_LATE_SHARE = 0.5;
/**
 * Or, with no arrivals to leave late (closed model: a virtual user starts its next iteration when
 * it gets to run, so it is never late), the loop's median delay: half its ticks late by this much
 * is a loop held up most of the second, which a GC pause or a noisy VM's steal does not do (one
 * pause moves the p99, not the median). Virtual users with think time keep the loop mostly idle,
 * so the busy rule does not see it either.
 */
const STARVED_MEDIAN_DELAY_MS = 20;
/**
 * Requests waited for a free connection while jobstorm's own loop ran callbacks late: the
 * connections were held by answers jobstorm had not read yet, so the wait is jobstorm's (a cold
 * engine at 8,000 requests/s: its first second's p99 was such waits while the target answered in a
 * few ms). A slow target holds the connections with the loop idle, and is not marked. Busy above
 * half, not BUSY: the loop lags before it reads as nearly always busy.
 */
const HELD_BUSY = 0.5;

/**
 * The real process: perf_hooks' event-loop utilisation and delay histogram, reset every second,
 * and the CPU share between two readings of `cpu` when it is given (from the CLI: only it touches
 * `process`; a shard thread gets the main thread's readings, see threaded-run.ts).
 */
export function eventLoopProbe(cpu?: () => CpuReading): GeneratorProbe {
  const delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  let lastCpu = cpu?.();
  return {
    sample() {
      const now = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(now, last).utilization;
      last = now;
      // The histogram is in ns and counts the monitor's own resolution as delay: take it off.
      const p99 = delay.count > 0 ? Math.max(0, delay.percentile(99) / 1e6 - 10) : 0;
      const p50 = delay.count > 0 ? Math.max(0, delay.percentile(50) / 1e6 - 10) : 0;
      delay.reset();
      const reading = cpu?.();
      const before = lastCpu;
      lastCpu = reading;
      // No new reading since the last second (a shard whose main thread was held up): no share.
      if (!reading || !before || reading.atMs <= before.atMs)
        return { busy, loopDelayP99Ms: p99, loopDelayP50Ms: p50 };
      return {
        busy,
        loopDelayP99Ms: p99,
        loopDelayP50Ms: p50,
        cpuShare: (reading.micros - before.micros) / 1000 / (reading.atMs - before.atMs),
      };
    },
    close: () => delay.disable(),
  };
}

/**
 * Knows when jobstorm itself is the bottleneck (issue "An engine whose cost follows its load"):
 * every second it samples its own event loop and the arrivals' lateness. Two or more limited
 * seconds in a row, or one whose arrivals left late, are a stretch: `onLimited` is called when one
 * is known (the CLI warns live), and
 * a `generator` record is emitted when it ends, for the report and the verdict. Latencies measured
 * in such a stretch include jobstorm's own queueing, not only the target's.
 */
export class GeneratorWatch {
  private cancelTick: (() => void) | undefined;
  private arrivals = 0;
  private late = 0;
  private run:
    | {
        start: number;
        seconds: number;
        busy: number;
        loopDelayP99Ms: number;
        latenessP99Ms: number;
        cpu: number;
        cpuSeconds: number;
        warned: boolean;
        /** A second of it sent arrivals late: reported however short the stretch. */
        late: boolean;
        /** A second of it had requests wait for connections jobstorm was still opening. */
        opening: boolean;
        /** Whether jobstorm's loop or CPU was the cause, in some second of it (for the warning). */
        loaded: boolean;
      }
    | undefined;
  private readonly figures: GeneratorFigures = { latenessP99Ms: 0, loopDelayP99Ms: 0, busyMax: 0 };
  private secondStart: number;
  /** This second's arrival lateness (emptied every second). */
  private readonly lateness = new Lateness();
  /** When the pool was opening connections for the first time, since time 0. */
  private readonly openings = new ConnectionOpenings();
  /** This second's requests that waited more than LATE_MS for such a connection, and the longest wait. */
  private openLate = 0;
  private openWaitMs = 0;
  /** This second's requests that waited more than LATE_MS to go onto a connection at all, and the longest wait. */
  private heldLate = 0;
  private heldWaitMs = 0;

  constructor(
    private readonly clock: Clock,
    private readonly probe: GeneratorProbe,
    private readonly emit: (r: GeneratorRecord) => void,
    private readonly nextSeq: () => number,
    private readonly onLimited: (message: string) => void,
    /** Seconds that end within the scenario's warm-up are not judged: it is there to absorb start-up. */
    private readonly warmupMs = 0,
  ) {
    this.secondStart = clock.now();
    this.schedule();
  }

  /** One arrival left `lateMs` after its intended time. */
  arrival(lateMs: number): void {
    this.arrivals++;
    if (lateMs > LATE_MS) this.late++;
    this.lateness.add(lateMs);
  }

  /**
   * The pool opened a connection for the first time, from `startedAt` to `endedAt` (run time):
   * requests waiting for a connection meanwhile waited for jobstorm, not for the target (issue 35).
   */
  connectionOpened(startedAt: number, endedAt: number): void {
    this.openings.add(startedAt, endedAt);
  }

  /**
   * A request ended: the part of its wait, from its intended start until it went onto a
   * connection, spent while jobstorm was still opening connections is jobstorm's lateness. For an
   * arrival's first request that wait includes the time it waited as a number for a free
   * connection (Dispatcher), which connections still being opened caused too.
   */
  exchange(r: ExchangeRecord): void {
    const onWire = r.sentAt + (r.queuedMs ?? 0);
    if (onWire - r.intendedAt > LATE_MS) {
      this.heldLate++;
      this.heldWaitMs = Math.max(this.heldWaitMs, onWire - r.intendedAt);
    }
    const waited = this.openings.during(r.intendedAt, onWire);
    if (waited <= LATE_MS) return;
    this.openLate++;
    this.openWaitMs = Math.max(this.openWaitMs, waited);
  }

  /** Ends the watch: a stretch still going on is reported up to now. */
  close(): GeneratorFigures {
    this.cancelTick?.();
    this.cancelTick = undefined;
    this.endStretch();
    this.probe.close();
    return { ...this.figures };
  }

  private schedule(): void {
    this.cancelTick = this.clock.schedule(1000, this.tick);
  }

  private readonly tick = (): void => {
    const now = this.clock.now();
    const s = this.probe.sample();
    if (now <= this.warmupMs) {
      this.nextSecond(now);
      return;
    }
    const latenessP99 = this.lateness.p99();
    const lateShare = this.arrivals > 0 ? this.late / this.arrivals : 0;
    const { saturated, starved } = loopState(s, lateShare);
    // This tick came a second or more late: the loop did not run at all for that long (the process
    // stopped, a long GC pause), whatever the second's shares say. It counts as the seconds it spans.
    const spanned = Math.max(1, Math.floor((now - this.secondStart) / 1000));
    const lateAlone = this.late >= LATE_ALONE && lateShare > LATE_SHARE && (s.busy >= BUSY || starved);
    const opening = this.openingLate();
    const held = this.heldByLoop(s);
    const loaded = saturated || starved || spanned >= 2 || lateAlone || held;
    this.figures.busyMax = Math.max(this.figures.busyMax, s.busy);
    this.figures.loopDelayP99Ms = Math.max(this.figures.loopDelayP99Ms, s.loopDelayP99Ms);
    this.figures.latenessP99Ms = Math.max(this.figures.latenessP99Ms, latenessP99);
    if (loaded || opening)
      this.limitedSecond(this.secondStart, spanned, s, {
        latenessP99Ms: Math.max(latenessP99, opening ? this.openWaitMs : 0, held ? this.heldWaitMs : 0),
        late: lateAlone || opening || held,
        opening,
        loaded,
      });
    else this.endStretch();
    this.nextSecond(now);
  };

  /**
   * Requests of this second waited for connections jobstorm had not opened yet: one such second is
   * enough, whatever the loop did (the wait is idle time). More than LATE_SHARE of the second's
   * arrivals, as for late arrivals, so that one connection opened late in a busy second, which
   * moves no percentile, is not a stretch.
   */
  private openingLate(): boolean {
    return this.openLate > 0 && this.openLate > LATE_SHARE * this.arrivals;
  }

  /** Requests of this second waited for a connection while the loop lagged (see HELD_BUSY). */
  private heldByLoop(s: GeneratorSample): boolean {
    return (
      this.heldLate > LATE_SHARE * this.arrivals &&
      this.heldLate > 0 &&
      s.busy >= HELD_BUSY &&
      s.loopDelayP99Ms >= LOOP_DELAY_MS
    );
  }

  private nextSecond(now: number): void {
    this.heldLate = 0;
    this.heldWaitMs = 0;
    this.arrivals = 0;
    this.late = 0;
    this.openLate = 0;
    this.openWaitMs = 0;
    this.lateness.reset();
    this.secondStart = now;
    this.schedule();
  }

  private limitedSecond(
    start: number,
    seconds: number,
    s: GeneratorSample,
    why: { latenessP99Ms: number; late: boolean; opening: boolean; loaded: boolean },
  ): void {
    const { latenessP99Ms, late } = why;
    const r = (this.run ??= {
      start,
      seconds: 0,
      busy: 0,
      loopDelayP99Ms: 0,
      latenessP99Ms: 0,
      cpu: 0,
      cpuSeconds: 0,
      warned: false,
      late: false,
      opening: false,
      loaded: false,
    });
    r.seconds += seconds;
    r.late ||= late;
    r.opening ||= why.opening;
    r.loaded ||= why.loaded;
    r.busy = Math.max(r.busy, s.busy);
    r.loopDelayP99Ms = Math.max(r.loopDelayP99Ms, s.loopDelayP99Ms);
    r.latenessP99Ms = Math.max(r.latenessP99Ms, latenessP99Ms);
    if (s.cpuShare !== undefined) {
      r.cpu += s.cpuShare;
      r.cpuSeconds++;
    }
    if ((r.seconds >= SUSTAINED_S || r.late) && !r.warned) {
      r.warned = true;
      const cpuShare = meanCpu(r);
      const figures = `event loop ${String(Math.round(r.busy * 100))}% busy, callbacks late by up to ${r.loopDelayP99Ms.toFixed(0)} ms, arrivals late p99 ${r.latenessP99Ms.toFixed(0)} ms`;
      this.onLimited(limitedMessage(r, figures, cpuShare));
    }
  }

  private endStretch(): void {
    const r = this.run;
    this.run = undefined;
    if (!r || (r.seconds < SUSTAINED_S && !r.late)) return;
    this.emit({
      v: RECORD_VERSION,
      type: 'generator',
      seq: this.nextSeq(),
      at: r.start,
      durationMs: Math.max(0, Math.round(this.clock.now() - r.start)),
      busy: Math.round(r.busy * 1000) / 1000,
      loopDelayP99Ms: Math.round(r.loopDelayP99Ms * 10) / 10,
      latenessP99Ms: Math.round(r.latenessP99Ms * 10) / 10,
      ...cpuField(meanCpu(r)),
    });
  }
}

/** What the user is told, live, when a stretch is known: what held jobstorm up, and what to do. */
/** Whether the second's loop was saturated by jobstorm's work, or starved of CPU by others. */
function loopState(s: GeneratorSample, lateShare: number): { saturated: boolean; starved: boolean } {
  const saturated = s.busy >= BUSY && (s.loopDelayP99Ms >= LOOP_DELAY_MS || lateShare > LATE_SHARE);
  const heldUp = lateShare > STARVED_LATE_SHARE || (s.loopDelayP50Ms ?? 0) >= STARVED_MEDIAN_DELAY_MS;
  const starved = starvedOfCpu(s) && s.loopDelayP99Ms >= STARVED_DELAY_MS && heldUp;
  return { saturated, starved };
}

function limitedMessage(
  r: { start: number; opening: boolean; loaded: boolean; latenessP99Ms: number },
  figures: string,
  cpuShare: number | undefined,
): string {
  const since = `since ${(r.start / 1000).toFixed(0)} s into the run`;
  if (r.opening && !r.loaded)
    return `jobstorm was still opening its connections to the target ${since}: requests waited up to ${r.latenessP99Ms.toFixed(0)} ms for a connection, and their latencies include that wait, not only the target's; a run whose first second has fewer arrivals than it later needs connections opens the rest as it goes`;
  if (cpuShare !== undefined && starvedOfCpu({ cpuShare }))
    return `jobstorm is not getting the CPU it needs ${since} (it ran ${String(Math.round(cpuShare * 100))}% of a core while work waited; ${figures}): a CPU quota, other processes or the host took the rest, and latencies from here include jobstorm's own delays; more --workers will not help: give it more CPU, or lower the rate`;
  return `jobstorm itself is the bottleneck ${since} (${figures}): latencies from here include its own queueing, not only the target's; spread the load with --workers 2 (or more), or lower the rate`;
}

/** The stretch's mean CPU share, when it was measured. */
function meanCpu(r: { cpu: number; cpuSeconds: number }): number | undefined {
  return r.cpuSeconds > 0 ? r.cpu / r.cpuSeconds : undefined;
}

function cpuField(cpuShare: number | undefined): { cpuShare?: number } {
  return cpuShare === undefined ? {} : { cpuShare: Math.round(cpuShare * 1000) / 1000 };
}
