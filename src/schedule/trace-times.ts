import type { TraceSizes } from '../core/job-trace-job.js';

/*
 * What the schedule needs of a replayed trace. schedule/ stays pure and never reads a file
 * (DESIGN "Layout"): the runner opens the trace and hands its rows over through this interface,
 * as offsets already rebased onto the window's start.
 */

/** The part of a trace row that travels with its arrival to the iteration (its sizes, its job). */
export interface TraceArrivalRow extends TraceSizes {
  /** The trace file's line, so a later problem can still name it. */
  readonly line: number;
}

/** One row of a trace phase: when, in trace milliseconds from the window's start, and what. */
export interface TracePoint {
  readonly offsetMs: number;
  readonly row: TraceArrivalRow;
}

/** A trace phase's rows (one pass through its window), in file order. */
export interface TraceTimes {
  /** Rows in one pass. */
  readonly count: number;
  /** One pass, trace ms: a looped pass starts this long after the one before it. */
  readonly passMs: number;
  /** Where the last pass ends, trace ms from its start (a phase does not wait a gap after its last row). */
  readonly endMs: number;
  /**
   * A fresh iterator over one pass. It may end early (a bad row found while playing): the phase
   * then has no more arrivals.
   */
  points(): Iterator<TracePoint>;
}

/** Gives a schedule the rows of its trace phases, by phase index. */
export type TraceTimesOf = (phase: number) => TraceTimes;

/** Walks a phase's points forward, restarting (a new pass of the file) only when asked to go back. */
export class TraceCursor {
  private it: Iterator<TracePoint>;
  private k = -1;
  private point: TracePoint | undefined;

  constructor(private readonly times: TraceTimes) {
    this.it = times.points();
  }

  /** The k-th point of a pass, or undefined past an early end. */
  at(k: number): TracePoint | undefined {
    if (k < this.k) {
      // The pass left behind holds its file open until it is closed.
      this.it.return?.();
      this.it = this.times.points();
      this.k = -1;
      this.point = undefined;
    }
    while (this.k < k) {
      const next = this.it.next();
      if (next.done === true) return undefined;
      this.point = next.value;
      this.k++;
    }
    return this.point;
  }
}
