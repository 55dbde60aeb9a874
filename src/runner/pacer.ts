import type { TraceSizes } from '../scenario/input-template.js';
import type { Phase } from '../scenario/scenario.js';
import type { ArrivalSchedule, PhaseWindow } from '../schedule/index.js';
import type { RunContext } from './run-context.js';
import type { RunOptions } from './run-options.js';

/**
 * How the pacer waits for an arrival, and why it never spins.
 *
 * A timer wakes late: libuv's timers have 1 ms granularity and fire after the poll phase, so a
 * sleep of d ms ends about d + 0.1..1.2 ms later on an idle loop. The pacer used to await arrivals
 * closer than 1.5 ms by yielding to I/O (setImmediate) in a loop: precise, but at 1,000 arrivals/s
 * every arrival is closer than that, and the loop spun most of a core doing nothing.
 *
 * Now every wait is a timer, aimed early by the lateness the timers have been measured to have
 * (`TimerSlack`: a running estimate, per run, of how late this machine's timers wake), and every
 * wake dispatches all arrivals already due, at their intended times (latency is measured from
 * the intended start, so an arrival sent 1 ms late costs its latency figure nothing). A wake that
 * comes before the next arrival sleeps again. Cost: one timer per wake, at most one per
 * millisecond, whatever the rate: at 1,000/s the pacer is ~1,000 timers/s, like a bare script's.
 * Precision: arrivals leave within the timer's slack of their time (p99 ~1-2 ms on an idle loop);
 * a loop busy with responses delays them more, which the lateness figure and the generator watch
 * report instead of hiding.
 *
 * The wait is a nap (Clock.nap: a bare timer, which may wake up to a millisecond early), not a
 * sleep: a sleep that woke early re-arms itself for what is left, and a timer cannot be set for
 * less than a millisecond, so an early wake cost a whole millisecond more. The pacer needs no
 * such guarantee: it reads the clock when it wakes and sends only what is due.
 */
export class TimerSlack {
  private estimateMs = 1;

  /** How much earlier than an arrival to set the timer that waits for it. */
  get leadMs(): number {
    return this.estimateMs;
  }

  /** Takes how late a timer woke (ms past the time it was set for). */
  observe(lateMs: number): void {
    const late = Math.min(4, Math.max(0, lateMs));
    // A slow moving average: one stalled wake (a GC pause) must not make every later wait early.
    this.estimateMs += (late - this.estimateMs) / 16;
  }
}

/** What the pacer hands arrivals to (vegeta's attacker side). */
export interface Dispatch {
  /** An open-model arrival, due at `at`; a trace phase's carries its row's sizes. */
  arrive(at: number, trace?: TraceSizes): void;
  /** A closed-model pass of one virtual user; resolves when the pass ends. */
  launch(at: number): Promise<void>;
}

/**
 * Walks the schedule's phases in order: open phases start each arrival at its intended time
 * (late ones at once, never silently dropped from the plan); closed phases loop virtual users.
 * A trace phase whose rows ended at a bad row (`badRow` says which, by phase) ends the arrivals
 * there, once the rows before it were sent: the message is returned, the run winds down as at its end.
 */
export async function pace(
  schedule: ArrivalSchedule,
  phases: readonly Phase[],
  ctx: RunContext,
  dispatch: Dispatch,
  shard: RunOptions['shard'],
  badRow: (phase: number) => string | undefined = () => undefined,
): Promise<string | undefined> {
  const { clock, stop } = ctx;
  /** `early`: the wake may come up to a millisecond early (Clock.nap); the caller reads the time. */
  const sleepUntil = async (at: number, early = false): Promise<boolean> => {
    const wait = at - clock.now();
    if (wait <= 0) return !stop.aborted;
    try {
      await (early && clock.nap ? clock.nap(wait, stop) : clock.sleep(wait, stop));
      return true;
    } catch {
      return false;
    }
  };
  const slack = new TimerSlack();
  const arrivals = schedule.arrivals();
  let next = arrivals.next();
  for (const w of schedule.windows) {
    if (!(await sleepUntil(w.startMs))) return undefined;
    if (w.kind === 'vus') {
      await closedPhase(w, vusOf(phaseVus(phases, w), shard), ctx, (at) => dispatch.launch(at));
      continue;
    }
    while (!next.done && next.value.phase === w.phase) {
      if (stop.aborted) return undefined;
      const now = clock.now();
      if (next.value.atMs > now) {
        // A timer aimed early by the measured slack (see TimerSlack); long waits in slices of at
        // most 100 ms, so an interrupt is seen promptly even between sparse arrivals.
        const wake = Math.min(Math.max(now + 1, next.value.atMs - slack.leadMs), now + 100);
        if (!(await sleepUntil(wake, true))) return undefined;
        slack.observe(clock.now() - wake);
        continue;
      }
      while (!next.done && next.value.phase === w.phase && next.value.atMs <= now) {
        dispatch.arrive(next.value.atMs, next.value.trace);
        next = arrivals.next();
      }
    }
    const bad = w.kind === 'trace' ? badRow(w.phase) : undefined;
    if (bad !== undefined) return bad;
    if (!(await sleepUntil(w.endMs))) return undefined;
  }
  return undefined;
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

async function closedPhase(
  w: PhaseWindow,
  vus: number,
  ctx: RunContext,
  launch: Dispatch['launch'],
): Promise<void> {
  const { clock, stop } = ctx;
  const user = async (): Promise<void> => {
    while (!stop.aborted && clock.now() < w.endMs) await launch(clock.now());
  };
  await Promise.all(Array.from({ length: vus }, user));
}
