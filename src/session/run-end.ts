import type { RunEnd } from '../report/verdict.js';
import type { RunOutcome } from '../runner/run-options.js';

/** How the run ended as the runner saw it, in the verdict's order of precedence. */
export function runEndOf(outcome: RunOutcome): RunEnd {
  if (outcome.failure !== undefined) return 'shard-failed';
  if (outcome.interrupted) return 'interrupted';
  return outcome.targetUnreachable ? 'unreachable' : 'completed';
}
