/**
 * A scenario's threshold as its file gives it: an expression, or the object form (durations in
 * ms). Here, not in scenario/ or report/, because the scenario reads it and the report judges it.
 */
export type ThresholdSpec =
  | string
  | {
      readonly threshold: string;
      readonly windowMs?: number;
      readonly abortOnFail?: boolean;
      readonly delayAbortEvalMs?: number;
    };
