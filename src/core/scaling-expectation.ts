/**
 * What a run expects of the endpoint's scaling, durations in ms; every field optional. It travels
 * in the `run` record, so the scaling checks judge a saved records file as they judged the run.
 */
export interface ScalingExpectation {
  readonly workersMin?: number;
  readonly workersMax?: number;
  readonly idleTimeoutMs?: number;
  /** Queued work may wait this long for workers while the endpoint is below workersMax. */
  readonly scaleUpWithinMs?: number;
  readonly pricePerWorkerSecond?: number;
  readonly currency?: string;
  /** Where the values came from: the scenario's `scaling:` block, or the embedded emulator's own settings under it. */
  readonly source?: 'scenario' | 'emulator';
}

/**
 * The run's expectation: what the scenario states, over what the target knows of itself (the
 * embedded emulator's settings). Undefined when neither says anything.
 */
export function resolveScaling(
  fromTarget: ScalingExpectation | undefined,
  fromScenario: ScalingExpectation | undefined,
): ScalingExpectation | undefined {
  if (fromTarget === undefined && fromScenario === undefined) return undefined;
  return {
    ...fromTarget,
    ...fromScenario,
    source: fromTarget === undefined ? 'scenario' : 'emulator',
  };
}
