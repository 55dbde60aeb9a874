import { runCli } from '../../src/cli/cli.js';
import { ManualClock } from '../../src/core/manual-clock.js';
import { ClockDriver, type ClockDriverOptions } from './clock-driver.js';
import type { CapturedIo } from './cli-io.js';
import { MANUAL_EPOCH_MS, quietLoop } from './manual-target.js';

/** Each read of the clock costs a microsecond, so two exchanges in a row never tie (ManualClock). */
export const READ_COST_MS = 0.001;

/** A manual clock as runCliOnClock makes one: for a server in this thread that the run shares it with. */
export function cliClock(): ManualClock {
  return new ManualClock(0, MANUAL_EPOCH_MS, READ_COST_MS);
}

/**
 * A jobstorm command in-process on a manual clock (issue 46): the embedded emulator starts in this
 * thread on the same clock, and a ClockDriver moves it whenever nothing is under way, so a run's
 * seconds pass as fast as loopback answers and read the same on a loaded machine as on an idle one.
 * `onClock` may set timers on the clock before the command starts (an interrupt at 7 s). `clock`:
 * one a `--target` server in this thread already reads (cliClock()), so the run shares it.
 */
export async function runCliOnClock(
  argv: readonly string[],
  io: CapturedIo,
  o: { driver?: ClockDriverOptions; onClock?: (clock: ManualClock) => void; clock?: ManualClock } = {},
): Promise<number> {
  const clock = o.clock ?? cliClock();
  o.onClock?.(clock);
  return new ClockDriver(clock, o.driver).run(runCli([...argv], { ...io, clock, generatorProbe: quietLoop }));
}
