import type { Clock } from '../core/clock.js';
import type { ProcessGroups } from '../emulator/external/process-groups.js';
import { startEmulatorInWorker } from '../emulator/in-worker.js';
import type { EmulatorOptions } from '../emulator/options.js';
import type { EmulatorHandle } from '../emulator/start.js';
import type { Target } from '../runner/run-options.js';
import type { Scenario } from '../scenario/scenario.js';
import { emulatorScaling } from '../emulator/emulator-scaling.js';

export interface EmbeddedTarget {
  target: Target;
  /** The emulator behind it: close it when the run is over. */
  emulator: EmulatorHandle;
}

export interface EmbeddedOptions {
  /** Faults switched on beside the scenario's own. */
  fault?: readonly string[];
  /** Extra options of the embedded emulator (real worker processes). */
  emulatorOptions?: EmulatorOptions;
  /** Where the emulator keeps its worker processes' groups (real workers). */
  processGroups?: ProcessGroups;
  /**
   * Start the emulator in this thread on this clock, not in a worker thread: an in-process caller
   * (a test) whose run shares a manual clock with it. A scenario with `clock: manual` keeps a
   * manual clock of its own, moved by its `advance` steps.
   */
  inThread?: Clock;
}

/** The embedded emulator's options: the scenario's `emulator:` block, its faults and the owner's extras. */
export function embeddedEmulatorOptions(scenario: Scenario, o: EmbeddedOptions = {}): EmulatorOptions {
  const e = scenario.emulator;
  return {
    port: 0,
    workersMin: e.workersMin,
    workersMax: e.workersMax,
    requestsPerWorker: e.requestsPerWorker,
    idleTimeout: Math.max(0.001, e.idleTimeoutMs / 1000),
    coldStartMs: e.coldStartMs,
    clock: e.clock,
    streamShape: e.streamShape,
    faults: [...e.faults, ...(o.fault ?? [])],
    // The emulator validates the profile itself (a ConfigError names what is wrong).
    ...(Object.keys(e.profile).length > 0 ? { profile: e.profile } : {}),
    ...o.emulatorOptions,
  };
}

/**
 * The run's target for an emulator started with `options` from `scenario`: its address, the
 * scaling the checks expect of it and, on its own manual clock, the way to move that clock.
 */
export function embeddedTargetOf(
  emulator: EmulatorHandle,
  scenario: Scenario,
  options: EmulatorOptions,
): Target {
  const e = scenario.emulator;
  return {
    baseUrl: emulator.url,
    managementUrl: emulator.managementUrl,
    apiKey: emulator.apiKey,
    ownsEndpoint: true,
    requestsPerWorker: e.requestsPerWorker,
    clock: e.clock,
    scaling: emulatorScaling(options),
    emulator: {
      advance: async (ms) => {
        await emulator.advance(ms);
      },
    },
  };
}

/**
 * The embedded emulator, configured from the scenario's `emulator:` block, started on a free
 * loopback port in a worker thread (so it does not share the generator's event loop).
 */
export async function startEmbeddedTarget(
  scenario: Scenario,
  o: EmbeddedOptions = {},
): Promise<EmbeddedTarget> {
  if (o.inThread) {
    const clock = scenario.emulator.clock === 'manual' ? 'manual' : o.inThread;
    const options = embeddedEmulatorOptions(scenario, {
      ...o,
      emulatorOptions: { ...o.emulatorOptions, clock },
    });
    const { startEmulator } = await import('../emulator/start.js');
    const emulator = await startEmulator(options);
    const target = embeddedTargetOf(emulator, scenario, options);
    // Sharing the run's clock, the emulator needs no `advance` from the run to move.
    if (clock !== 'manual') delete target.clock;
    return { emulator, target };
  }
  const options = embeddedEmulatorOptions(scenario, o);
  const emulator = await startEmulatorInWorker(
    options,
    o.processGroups ? { processGroups: o.processGroups } : {},
  );
  return { emulator, target: embeddedTargetOf(emulator, scenario, options) };
}
