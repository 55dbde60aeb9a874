import type { EpochClock } from '../core/clock.js';
import { runScenario } from '../runner/runner.js';
import type { Target } from '../runner/run-options.js';
import type { Scenario } from '../scenario/scenario.js';
import { jobsInSystem } from '../core/health-reading.js';
import { timedReadingOf } from './timed-reading.js';
import { settleScenario } from './step-scenario.js';

export interface SettleResult {
  /** Jobs in system at the last sample; null when /health never answered with its gauges. */
  depth: number | null;
  /** The depth came down to the baseline before the timeout. */
  drained: boolean;
  targetUnreachable: boolean;
  waitedMs: number;
}

export interface SettleOptions {
  scenario: Scenario;
  target: Target;
  runId: string;
  clock: EpochClock;
  timeoutMs: number;
  /** Wait until jobs in system ≤ this; undefined takes the first sample as it is. */
  baseline?: number;
  interrupt?: AbortSignal;
}

/**
 * Waits until the endpoint holds no more jobs than before the search began, so a failed step's
 * backlog does not count against the next one. Against a shared endpoint the baseline is whatever
 * other traffic kept there when the search started.
 */
export async function settleQueue(o: SettleOptions): Promise<SettleResult> {
  const stop = new AbortController();
  const onOuter = (): void => stop.abort(new Error('interrupted'));
  o.interrupt?.addEventListener('abort', onOuter, { once: true });
  if (o.interrupt?.aborted) onOuter();
  let depth: number | null = null;
  let drained = false;
  try {
    const outcome = await runScenario({
      scenario: settleScenario(o.scenario, o.timeoutMs),
      target: o.target,
      runId: o.runId,
      clock: o.clock,
      sampleHealth: false,
      interrupt: stop.signal,
      drainMs: 1000,
      // A dead target should be reported in a second or two, not after 50 refused connections.
      unreachableAfter: 3,
      onRecord: (r) => {
        if (r.type !== 'exchange' || r.op !== 'health' || r.status === undefined) return;
        const sample = timedReadingOf(r);
        // An answer without the gauges (401, 5xx, another body) will not change by waiting: go on,
        // and let the step show what the target does.
        if (!sample) {
          stop.abort(new Error('no queue depth'));
          return;
        }
        depth = jobsInSystem(sample);
        if (o.baseline === undefined || depth <= o.baseline) {
          drained = true;
          stop.abort(new Error('settled'));
        }
      },
    });
    return { depth, drained, targetUnreachable: outcome.targetUnreachable, waitedMs: outcome.durationMs };
  } finally {
    o.interrupt?.removeEventListener('abort', onOuter);
  }
}
