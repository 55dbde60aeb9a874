import { ConfigError } from '../core/index.js';
import type { Phase, TracePhase } from '../scenario/scenario.js';
import type { TracePoint, TraceTimes, TraceTimesOf } from '../schedule/index.js';
import { openTrace, type TraceSource, type TraceWindow } from '../trace/index.js';

/*
 * The trace phases' rows for the schedule, which reads no file itself. Each phase's window is
 * counted once here, before time 0 (the schedule needs its arrival count for the indexes that
 * shards split); each pass of the run reads the file again as it plays, a row at a time.
 */

interface WindowFacts {
  readonly origin: number;
  readonly count: number;
  readonly firstAt: number;
  readonly lastAt: number;
  /** A bad row past the rows validated at load, met while counting: the phase stops before it. */
  readonly bad?: ConfigError;
}

function countWindow(trace: TraceSource, origin: number, window: TraceWindow): WindowFacts {
  let count = 0;
  let firstAt = origin;
  let lastAt = origin;
  try {
    for (const row of trace.rows(window)) {
      if (count === 0) firstAt = row.atMs;
      lastAt = row.atMs;
      count++;
    }
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return { origin, count, firstAt, lastAt, bad: err };
  }
  return { origin, count, firstAt, lastAt };
}

function* points(
  trace: TraceSource,
  window: TraceWindow,
  facts: WindowFacts,
  onBadRow: (error: ConfigError) => void,
): Generator<TracePoint> {
  const rows = trace.rows(window);
  try {
    // Never past the rows counted: reading on would throw at the bad row instead of telling it.
    for (let n = 0; n < facts.count; n++) {
      const next = rows.next();
      if (next.done === true) return;
      // The last point: its file is closed before it is handed out. A schedule never asks past its
      // last arrival, so a pass left suspended there held its descriptor for good (fuzz trials ran
      // a CI worker out of descriptors, EMFILE).
      if (n === facts.count - 1) rows.return();
      yield { offsetMs: next.value.atMs - facts.origin, row: next.value };
    }
  } finally {
    rows.return();
  }
  if (facts.bad !== undefined) onBadRow(facts.bad);
}

/** One trace phase's rows; a bad row stops the phase there and is told to `onBadRow`. */
export function traceTimes(phase: TracePhase, onBadRow: (error: ConfigError) => void): TraceTimes {
  const trace = openTrace(phase.file, phase.format);
  // The window in the trace's own time: `from`/`to` count from its first row.
  const { origin, window } = trace.window(phase.fromMs, phase.toMs);
  const facts = countWindow(trace, origin, window);
  const lastOffset = facts.lastAt - origin;
  // Without a `to`, a looped pass lasts its rows plus one mean gap, so the loop keeps the trace's rate.
  const meanGap = facts.count > 1 ? (facts.lastAt - facts.firstAt) / (facts.count - 1) : 0;
  const windowMs = phase.toMs === undefined ? undefined : phase.toMs - (phase.fromMs ?? 0);
  return {
    // A bad row counts as one more arrival, so the schedule asks for it and the phase stops there.
    count: facts.count + (facts.bad === undefined ? 0 : 1),
    passMs: windowMs ?? lastOffset + meanGap,
    endMs: windowMs ?? lastOffset,
    points: () => points(trace, window, facts, onBadRow),
  };
}

/**
 * The rows of every trace phase of `phases`, by phase index, for `ScheduleOptions.traces`.
 * `onBadRow` hears of a phase's bad row whenever a pass reaches it (a look-ahead too, so the
 * runner stops only when the pacer has played the rows before it).
 */
export function traceTimesOf(
  phases: readonly Phase[],
  onBadRow: (error: ConfigError, phase: number) => void,
): TraceTimesOf {
  const made = new Map<number, TraceTimes>();
  return (i) => {
    const phase = phases[i];
    if (phase?.kind !== 'trace') throw new Error(`phase ${String(i + 1)} replays no trace`);
    let times = made.get(i);
    if (times === undefined) {
      times = traceTimes(phase, (error) => onBadRow(error, i));
      made.set(i, times);
    }
    return times;
  };
}
