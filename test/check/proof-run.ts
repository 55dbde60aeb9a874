import { type CheckResult } from '../../src/check/checker.js';
import type { OpenApiRules } from '../../src/check/openapi-rules.js';
import { systemClock, type EpochClock } from '../../src/core/clock.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { ManualClock } from '../../src/core/manual-clock.js';
import { startEmulator } from '../../src/emulator/index.js';
import { embeddedEmulatorOptions, embeddedTargetOf } from '../../src/library/embedded-target.js';
import { reachTarget } from '../../src/library/run-target.js';
import type { RunOptions, Target } from '../../src/runner/run-options.js';
import { runScenario } from '../../src/runner/runner.js';
import type { WebhookAnswers } from '../../src/runner/webhook-receiver.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { parseScenario } from '../../src/scenario/scenario-parser.js';
import { READ_COST_MS } from '../helpers/cli-on-clock.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { FoldedChecker } from '../helpers/folded.js';
import { MANUAL_EPOCH_MS, quietLoop } from '../helpers/manual-target.js';

export interface ProofOptions {
  faults?: string[];
  webhookAnswers?: WebhookAnswers;
  openapi?: OpenApiRules;
  /**
   * Real time, the emulator in its worker thread as `jobstorm run` starts it: for a `blast` step,
   * whose autocannon sends on sockets of its own for real seconds, out of a clock driver's sight.
   */
  realTime?: boolean;
}

export interface ProofResult extends CheckResult {
  records: JobstormRecord[];
  fired: Map<string, number>;
}

/** Where a proof runs: its target, the run's clock, how to drive the run, what to close. */
interface ProofTarget {
  target: Target;
  clock: EpochClock;
  drive: <T>(work: Promise<T>) => Promise<T>;
  extra: Partial<RunOptions>;
  close: () => Promise<void>;
}

/**
 * The emulator `jobstorm run` would embed, in this thread on a manual clock the run shares
 * (issue 46): a proof's seconds of cold starts, idle timeouts and /health samples pass as fast as
 * loopback answers, and the same records come out on a loaded machine as on an idle one.
 */
async function manualProofTarget(scenario: Scenario, faults: readonly string[]): Promise<ProofTarget> {
  const clock = new ManualClock(0, MANUAL_EPOCH_MS, READ_COST_MS);
  // A scenario that moves the emulator's clock itself (`clock: manual`, `advance` steps) gets one
  // of its own, as `jobstorm run` gives it; any other shares the run's.
  const own = scenario.emulator.clock === 'manual';
  const options = embeddedEmulatorOptions(scenario, {
    fault: faults,
    emulatorOptions: { clock: own ? new ManualClock(0, MANUAL_EPOCH_MS) : clock },
  });
  const emulator = await startEmulator(options);
  const { clock: targetClock, ...shared } = embeddedTargetOf(emulator, scenario, options);
  // A proof run of thousands of jobs takes seconds of real CPU on an idle machine, several times
  // that beside other work: the caller's test timeout bounds it, not the driver's 30 s default.
  const driver = new ClockDriver(clock, { maxRealMs: 110_000 });
  return {
    target: own ? { ...shared, clock: targetClock } : shared,
    clock,
    drive: (work) => driver.run(work),
    extra: { generatorProbe: quietLoop },
    close: () => emulator.close(),
  };
}

async function realProofTarget(scenario: Scenario, faults: readonly string[]): Promise<ProofTarget> {
  const reached = await reachTarget(scenario, { faults });
  return {
    target: reached.target,
    clock: systemClock,
    drive: (work) => work,
    extra: {},
    close: () => reached.close(),
  };
}

/**
 * Runs a scenario (YAML text) against the emulator `jobstorm run` would embed (the scenario's
 * `emulator:` block and the faults), and checks its records live. Returns the checker's result
 * and the records, so a test can also replay them.
 */
export async function proofRun(yaml: string, o: ProofOptions = {}): Promise<ProofResult> {
  const scenario = parseScenario(yaml, 'proof.yaml', { env: {} });
  const at = await (o.realTime ? realProofTarget : manualProofTarget)(scenario, o.faults ?? []);
  const records: JobstormRecord[] = [];
  let checker: FoldedChecker | undefined;
  try {
    await at.drive(
      runScenario({
        ...at.extra,
        clock: at.clock,
        scenario,
        target: at.target,
        runId: 'proof',
        gracefulStopMs: 15_000,
        drainMs: 2000,
        ...(o.webhookAnswers ? { webhookAnswers: o.webhookAnswers } : {}),
        onRecord: (r) => {
          records.push(r);
          if (r.type === 'run') checker = new FoldedChecker(r, o.openapi ? { openapi: o.openapi } : {});
          else checker?.add(r);
        },
      }),
    );
  } finally {
    await at.close();
  }
  if (!checker) throw new Error('no run record');
  const result = checker.finish();
  return { ...result, records, fired: new Map(result.violations.map((g) => [g.id, g.count])) };
}
