import {
  DEFAULT_FACTOR,
  DEFAULT_QUEUE_GROWTH_TOLERANCE,
  DEFAULT_SETTLE_TIMEOUT_MS,
  DEFAULT_UNBOUNDED_QUEUE_SECONDS,
  type CapacityOptions,
  type StepPlan,
} from './capacity-options.js';
import {
  CAPACITY_VERSION,
  type CapacityReport,
  type CapacityStep,
  type HealthPoint,
} from './capacity-report.js';
import { settleQueue, type SettleResult } from './queue-settle.js';
import { RateSearch } from './rate-search.js';
import { runRateStep, type StepSettings } from './step-run.js';

function verdictOf(search: RateSearch, unreachable: boolean): CapacityReport['verdict'] {
  const { lastPassing, firstFailing } = search.bounds;
  if (unreachable) return 'unknown';
  if (lastPassing !== null) return firstFailing !== null ? 'found' : 'at-least';
  return firstFailing !== null ? 'none' : 'unknown';
}

function stepSettingsOf(o: CapacityOptions, runId: string, originMs: number): StepSettings {
  const { stepDurationMs, warmupMs } = o.steps;
  return {
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
    clock: o.clock,
    ...(o.interrupt ? { interrupt: o.interrupt } : {}),
    ...(o.cpu ? { cpu: o.cpu } : {}),
    ...(o.generatorProbe ? { generatorProbe: o.generatorProbe } : {}),
    ...(o.onRecord ? { onRecord: o.onRecord } : {}),
    ...(o.exports ? { exports: o.exports } : {}),
    ...(o.onProgress ? { onProgress: (p) => o.onProgress?.(p) } : {}),
    ...(o.onStepStart ? { onStepStart: (step, session) => o.onStepStart?.(step, session) } : {}),
  };
}

/** What the steps found, for the report. */
interface Climb {
  steps: CapacityStep[];
  health: HealthPoint[];
  unreachable: boolean;
  interrupted: boolean;
  generatorLimitedAt: number | undefined;
}

/** Steps up (and in binary mode narrows) the rate, draining the queue between steps. */
async function climb(
  o: CapacityOptions,
  search: RateSearch,
  settings: StepSettings,
  settle: (baseline: number | undefined, n: number) => Promise<SettleResult>,
): Promise<Climb> {
  // The depth before the first step is the baseline every later step drains back to.
  const first = await settle(undefined, 0);
  const c: Climb = {
    steps: [],
    health: [],
    unreachable: first.targetUnreachable,
    interrupted: o.interrupt?.aborted ?? false,
    generatorLimitedAt: undefined,
  };
  const baseline = first.depth ?? 0;
  const going = (): boolean => !c.unreachable && !c.interrupted && c.generatorLimitedAt === undefined;
  for (let next = search.next(); next && going(); next = search.next()) {
    if (c.steps.length > 0) await settle(baseline, c.steps.length);
    const r = await runRateStep(settings, c.steps.length + 1, next.rate, next.stage);
    c.interrupted = r.interrupted;
    c.unreachable = r.outcome.targetUnreachable;
    c.health.push(...r.health);
    c.steps.push(r.step);
    o.onStep?.(r.step);
    // A step failed while jobstorm itself was the bottleneck says nothing the target can be held
    // to: the search ends there (a rate that passed regardless still counts).
    if (!r.step.passed && r.step.generatorLimited) c.generatorLimitedAt = next.rate;
    // An interrupted step says nothing about the rate, so it does not move the search.
    else if (!c.interrupted && !c.unreachable) search.report(next.rate, r.step.passed);
  }
  return c;
}

/** The plan as the report states it; also what the CLI says before the first step. */
export function planOf(steps: StepPlan): CapacityReport['plan'] {
  return {
    start: steps.start,
    factor: steps.increment !== undefined ? null : (steps.factor ?? DEFAULT_FACTOR),
    increment: steps.increment ?? null,
    max: steps.max,
    stepDurationMs: steps.stepDurationMs,
    warmupMs: steps.warmupMs,
  };
}

/**
 * Finds the highest arrival rate the target sustains within the SLO: runs the scenario's flows at
 * rising constant rates (one step each, drained in between), stops at the first failing step, and
 * in binary mode narrows the interval between the last passing and the first failing rate.
 * Never throws for what the target does; an unreachable target or an interrupt ends the search
 * with what it has.
 */
export async function findCapacity(o: CapacityOptions): Promise<CapacityReport> {
  const originMs = o.clock.epochNow();
  const runId = o.runId ?? `capacity-${o.scenario.name}`;
  const { stepDurationMs, warmupMs } = o.steps;
  if (!(stepDurationMs > 0) || !(warmupMs >= 0))
    throw new RangeError(
      `findCapacity: step duration must be positive and warm-up not negative, got ${String(stepDurationMs)} and ${String(warmupMs)} ms`,
    );
  const settleTimeoutMs = o.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS;
  const search = new RateSearch(o.steps, o.mode, {
    resolution: o.resolution,
    maxRefinements: o.maxRefinements,
  });
  const settle = (baseline: number | undefined, n: number): Promise<SettleResult> =>
    settleQueue({
      scenario: o.scenario,
      target: o.target,
      runId: `${runId}-settle${String(n)}`,
      clock: o.clock,
      timeoutMs: settleTimeoutMs,
      baseline,
      ...(o.interrupt ? { interrupt: o.interrupt } : {}),
    });
  const c = await climb(o, search, stepSettingsOf(o, runId, originMs), settle);
  const { lastPassing, firstFailing } = search.bounds;
  return {
    version: CAPACITY_VERSION,
    kind: 'jobstorm-capacity',
    runId,
    scenario: o.scenario.name,
    target: o.target.baseUrl,
    startedAtMs: originMs,
    durationMs: o.clock.epochNow() - originMs,
    mode: o.mode,
    plan: planOf(o.steps),
    slo: o.slo.map((t) => t.expression),
    verdict: verdictOf(search, c.unreachable),
    capacity: lastPassing,
    confidence: { lastPassing, firstFailing },
    steps: c.steps,
    health: c.health,
    targetUnreachable: c.unreachable,
    interrupted: c.interrupted,
    generatorLimitedAt: c.generatorLimitedAt,
  };
}
