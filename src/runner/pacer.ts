import type { Phase } from '../scenario/scenario.js';
import type { ArrivalSchedule, PhaseWindow } from '../schedule/index.js';
import type { RunContext } from './run-context.js';
import type { RunOptions } from './run-options.js';

/** How late a timer may wake: arrivals closer than this are awaited by yielding, not sleeping. */
const TIMER_SLACK_MS = 1.5;

const yieldToIo = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** What the pacer hands arrivals to (vegeta's attacker side). */
export interface Dispatch {
  /** An open-model arrival, due at `at`. */
  arrive(at: number): void;
  /** A closed-model pass of one virtual user; resolves when the pass ends. */
  launch(at: number): Promise<void>;
}

/**
 * Walks the schedule's phases in order: open phases start each arrival at its intended time
 * (late ones at once, never silently dropped from the plan); closed phases loop virtual users.
 */
export async function pace(schedule: ArrivalSchedule, phases: readonly Phase[], ctx: RunContext, dispatch: Dispatch, shard: RunOptions['shard']): Promise<void> {
  const { clock, stop } = ctx;
  const sleepUntil = async (at: number): Promise<boolean> => {
    const wait = at - clock.now();
    if (wait <= 0) return !stop.aborted;
    try {
      await clock.sleep(wait, stop);
      return true;
    } catch {
      return false;
    }
  };
  const arrivals = schedule.arrivals();
  let next = arrivals.next();
  for (const w of schedule.windows) {
    if (!(await sleepUntil(w.startMs))) return;
    if (w.kind === 'vus') {
      await closedPhase(w, vusOf(phaseVus(phases, w), shard), ctx, (at) => dispatch.launch(at));
      continue;
    }
    while (!next.done && next.value.phase === w.phase) {
      if (stop.aborted) return;
      const now = clock.now();
      if (next.value.atMs > now) {
        // A timer cannot wake us sooner than about a millisecond late, so an arrival due within
        // that is awaited by yielding to I/O (setImmediate) instead. Longer waits sleep, in short
        // slices so an interrupt is seen promptly even between sparse arrivals.
        if (next.value.atMs - now < TIMER_SLACK_MS) await yieldToIo();
        else if (!(await sleepUntil(Math.min(next.value.atMs - TIMER_SLACK_MS, now + 100)))) return;
        continue;
      }
      while (!next.done && next.value.phase === w.phase && next.value.atMs <= now) {
        dispatch.arrive(next.value.atMs);
        next = arrivals.next();
      }
    }
    if (!(await sleepUntil(w.endMs))) return;
  }
}

/** This shard's share of a closed phase's virtual users (the first shards take the remainder). */
function vusOf(vus: number, shard: RunOptions['shard']): number {
  if (!shard) return vus;
  return Math.floor(vus / shard.count) + (shard.index <= vus % shard.count ? 1 : 0);
}

function phaseVus(phases: readonly Phase[], w: PhaseWindow): number {
  const phase = phases[w.phase];
  return phase?.kind === 'vus' ? phase.vus : 0;
}

async function closedPhase(w: PhaseWindow, vus: number, ctx: RunContext, launch: Dispatch['launch']): Promise<void> {
  const { clock, stop } = ctx;
  const user = async (): Promise<void> => {
    while (!stop.aborted && clock.now() < w.endMs) await launch(clock.now());
  };
  await Promise.all(Array.from({ length: vus }, user));
}
