import { ManualClock } from '../../src/core/manual-clock.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import type { EmulatorOptions } from '../../src/emulator/options.js';
import type { GeneratorProbe } from '../../src/runner/generator-watch.js';
import type { Target } from '../../src/runner/run-options.js';
import { ClockDriver, type ClockDriverOptions } from './clock-driver.js';

/** A fixed wall-clock instant for a manual clock's zero, so reports' dates are the same on every run. */
export const MANUAL_EPOCH_MS = Date.UTC(2026, 0, 1);

/**
 * The generator watch's reading of a loop that kept up: on a manual clock the real event loop is
 * the driver's, busy by design and unrelated to the run's seconds, so a run driven here says what
 * its loop did instead (a test of the watch itself says otherwise).
 */
export const quietLoop = (): GeneratorProbe => ({
  sample: () => ({ busy: 0.1, loopDelayP99Ms: 0, loopDelayP50Ms: 0 }),
  close: () => undefined,
});

export interface ManualTarget {
  emulator: EmulatorHandle;
  clock: ManualClock;
  driver: ClockDriver;
  /** The emulator as a run's target (the run shares its clock, so no `clock: 'manual'` note is needed). */
  target: Target;
}

/**
 * An emulator in this thread on a manual clock, the same clock a run given `clock` reads, and the
 * driver that moves it: a scenario's seconds pass as fast as loopback answers.
 */
export async function manualTarget(
  options: Omit<EmulatorOptions, 'clock'> = {},
  driver: ClockDriverOptions = {},
): Promise<ManualTarget> {
  const clock = new ManualClock(0, MANUAL_EPOCH_MS);
  const emulator = await startEmulator({ port: 0, coldStartMs: 0, ...options, clock });
  return {
    emulator,
    clock,
    driver: new ClockDriver(clock, driver),
    target: {
      baseUrl: emulator.url,
      managementUrl: emulator.managementUrl,
      apiKey: emulator.apiKey,
      ownsEndpoint: true,
    },
  };
}
