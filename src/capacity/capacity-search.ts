import {
  DEFAULT_FACTOR,
  DEFAULT_QUEUE_GROWTH_TOLERANCE,
  DEFAULT_SETTLE_TIMEOUT_MS,
  DEFAULT_UNBOUNDED_QUEUE_SECONDS,
  type CapacityOptions,
} from './capacity-options.js';
import {
  CAPACITY_VERSION,
  type CapacityReport,
  type CapacityStep,
  type HealthPoint,
} from './capacity-report.js';
import { settleQueue } from './queue-settle.js';
import { RateSearch } from './rate-search.js';
import { runStep, type StepSettings } from './step-run.js';

function verdictOf(search: RateSearch, unreachable: boolean): CapacityReport['verdict'] {
  const { lastPassing, firstFailing } = search.bounds;
  if (unreachable) return 'unknown';
  if (lastPassing !== null) return firstFailing !== null ? 'found' : 'at-least';
  return firstFailing !== null ? 'none' : 'unknown';
}

/**
 * Finds the highest arrival rate the target sustains within the SLO: runs the scenario's flows at
 * rising constant rates (one step each, drained in between), stops at the first failing step, and
 * in binary mode narrows the interval between the last passing and the first failing rate.
 * Never throws for what the target does; an unreachable target or an interrupt ends the search
 * with what it has.
 */
export async function findCapacity(o: CapacityOptions): Promise<CapacityReport> {
  const originMs = Date.now();
  const runId = o.runId ?? `capacity-${o.scenario.name}`;
  const { stepDurationMs, warmupMs } = o.steps;
  if (!(stepDurationMs > 0) || !(warmupMs >= 0))
    throw new RangeError(
      `findCapacity: step duration must be positive and warm-up not negative, got ${String(stepDurationMs)} and ${String(warmupMs)} ms`,
    );
  const settleTimeoutMs = o.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS;
  const settings: StepSettings = {
    scenario: o.scenario,
    target: o.target,
    slo: o.slo,
    warmupMs,
    stepDurationMs,
    gracefulStopMs: o.gracefulStopMs ?? Math.min(30_000, Math.max(5_000, stepDurationMs)),
    queueGrowthTolerance: o.queueGrowthTolerance ?? DEFAULT_QUEUE_GROWTH_TOLERANCE,
    unboundedQueueSeconds: o.unboundedQueueSeconds ?? DEFAULT_UNBOUNDED_QUEUE_SECONDS,
    runId,
    originMs,
    ...(o.interrupt ? { interrupt: o.interrupt } : {}),
    ...(o.cpu ? { cpu: o.cpu } : {}),
    ...(o.onRecord ? { onRecord: o.onRecord } : {}),
  };
  const search = new RateSearch(o.steps, o.mode, {
    ...(o.resolution !== undefined ? { resolution: o.resolution } : {}),
    ...(o.maxRefinements !== undefined ? { maxRefinements: o.maxRefinements } : {}),
  });
  const steps: CapacityStep[] = [];
  const health: HealthPoint[] = [];
  const settle = (baseline: number | undefined, n: number) =>
    settleQueue({
      scenario: o.scenario,
      target: o.target,
      runId: `${runId}-settle${String(n)}`,
      timeoutMs: settleTimeoutMs,
      ...(baseline !== undefined ? { baseline } : {}),
      ...(o.interrupt ? { interrupt: o.interrupt } : {}),
    });

  // The depth before the first step is the baseline every later step drains back to.
  const first = await settle(undefined, 0);
  let unreachable = first.targetUnreachable;
  const baseline = first.depth ?? 0;
  let interrupted = o.interrupt?.aborted ?? false;
  let generatorLimitedAt: number | undefined;
  for (
    let next = search.next();
    next && !unreachable && !interrupted && generatorLimitedAt === undefined;
    next = search.next()
  ) {
    if (steps.length > 0) await settle(baseline, steps.length);
    const r = await runStep(settings, steps.length + 1, next.rate, next.stage);
    interrupted = r.interrupted;
    unreachable = r.outcome.targetUnreachable;
    health.push(...r.health);
    steps.push(r.step);
    o.onStep?.(r.step);
    // A step failed while jobstorm itself was the bottleneck says nothing the target can be held
    // to: the search ends there (a rate that passed regardless still counts).
    if (!r.step.passed && r.step.generatorLimited) generatorLimitedAt = next.rate;
    // An interrupted step says nothing about the rate, so it does not move the search.
    else if (!interrupted && !unreachable) search.report(next.rate, r.step.passed);
  }
  const { lastPassing, firstFailing } = search.bounds;
  return {
    version: CAPACITY_VERSION,
    kind: 'jobstorm-capacity',
    runId,
    scenario: o.scenario.name,
    target: o.target.baseUrl,
    startedAtMs: originMs,
    durationMs: Date.now() - originMs,
    mode: o.mode,
    plan: {
      start: o.steps.start,
      factor: o.steps.increment !== undefined ? null : (o.steps.factor ?? DEFAULT_FACTOR),
      increment: o.steps.increment ?? null,
      max: o.steps.max,
      stepDurationMs,
      warmupMs,
    },
    slo: o.slo.map((t) => t.expression),
    verdict: verdictOf(search, unreachable),
    capacity: lastPassing,
    confidence: { lastPassing, firstFailing },
    steps,
    health,
    targetUnreachable: unreachable,
    interrupted,
    ...(generatorLimitedAt === undefined ? {} : { generatorLimitedAt }),
  };
}
