import type { Clock } from '../core/clock.js';
import type { ProcessGroups } from '../emulator/external/process-groups.js';
import type { EmulatorOptions } from '../emulator/options.js';
import type { EmulatorHandle } from '../emulator/start.js';
import type { Target } from '../runner/run-options.js';
import type { Scenario } from '../scenario/scenario.js';
import type { ReachedTarget } from '../session/run-assembly.js';

/**
 * The guard over the user's worker processes: the CLI's, which kills their groups when jobstorm
 * quits at once (only the CLI touches `process`). Released once the emulator has closed.
 */
export interface WorkerGuard {
  groups: ProcessGroups;
  release(): void;
}

/** Where a run goes, as its owner resolved it; what only the CLI knows is passed in here. */
export interface TargetChoice {
  /** A remote target, already validated (remoteTarget); none: the embedded emulator. */
  remote?: Target;
  /** Faults switched on beside the scenario's own (embedded emulator only). */
  faults?: readonly string[];
  /** Extra options of the embedded emulator: the user's worker processes (the CLI's worker-target.ts). */
  emulatorOptions?: EmulatorOptions;
  workerGuard?: WorkerGuard;
  /** Called with the emulator just before it closes (the CLI reads its worker processes' figures). */
  beforeClose?: (emulator: EmulatorHandle) => Promise<void>;
  /** The embedded emulator in this thread on this clock (an in-process caller's; embeddedTarget's `inThread`). */
  emulatorClock?: Clock;
  /** `--exclusive-endpoint`: no other client sends to the endpoint. */
  exclusiveEndpoint?: boolean;
  /** `--local-address`: the local IP address requests leave from. */
  localAddress?: string;
}

export interface RunTarget extends ReachedTarget {
  /** The embedded emulator, when the run started one. */
  emulator?: EmulatorHandle;
}

/**
 * The run's target: the remote one as given, or the embedded emulator started from the scenario's
 * `emulator:` block, with what the owner's flags add to either. The one place the CLI's `run` and
 * `capacity` and `runJobstorm` reach their target (issue 46); `close` stops what this started.
 */
export async function reachTarget(scenario: Scenario, choice: TargetChoice): Promise<RunTarget> {
  const release = (): void => choice.workerGuard?.release();
  // Only what the owner gave: an undefined would wipe the target's own value.
  const overlay = (target: Target): Target => ({
    ...target,
    ...(choice.exclusiveEndpoint === undefined ? {} : { exclusiveEndpoint: choice.exclusiveEndpoint }),
    ...(choice.localAddress === undefined ? {} : { localAddress: choice.localAddress }),
  });
  if (choice.remote) {
    return {
      target: overlay(choice.remote),
      close: () => {
        release();
        return Promise.resolve();
      },
    };
  }
  // The emulator only when there is no remote target: loading it costs a run against a real
  // target CPU and start-up time for nothing (issue 35).
  const { startEmbeddedTarget } = await import('./embedded-target.js');
  const embedded = await startEmbeddedTarget(scenario, {
    ...(choice.faults?.length ? { fault: choice.faults } : {}),
    ...(choice.emulatorOptions ? { emulatorOptions: choice.emulatorOptions } : {}),
    ...(choice.workerGuard ? { processGroups: choice.workerGuard.groups } : {}),
    ...(choice.emulatorClock ? { inThread: choice.emulatorClock } : {}),
  }).catch((err: unknown) => {
    release();
    throw err;
  });
  const { emulator } = embedded;
  return {
    target: overlay(embedded.target),
    emulator,
    close: async () => {
      try {
        await choice.beforeClose?.(emulator);
        await emulator.close();
      } finally {
        release();
      }
    },
  };
}
