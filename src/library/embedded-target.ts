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
}

/**
 * The embedded emulator, configured from the scenario's `emulator:` block, started on a free
 * loopback port in a worker thread (so it does not share the generator's event loop).
 */
export async function startEmbeddedTarget(
  scenario: Scenario,
  o: EmbeddedOptions = {},
): Promise<EmbeddedTarget> {
  const e = scenario.emulator;
  const options: EmulatorOptions = {
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
  const emulator = await startEmulatorInWorker(
    options,
    o.processGroups ? { processGroups: o.processGroups } : {},
  );
  return {
    emulator,
    target: {
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
    },
  };
}
