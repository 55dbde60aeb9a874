import { ExitCode } from '../core/exit-code.js';
import type { Summary } from '../report/summary.js';
import { VERDICT_EXIT, type RunEnd, type VerdictStatus } from '../report/verdict.js';
import type { RunOutcome } from '../runner/run-options.js';
import type { Halt } from './barrier/shard-together.js';

/**
 * What decides a run's exit code. The CLI's `run`, `runJobstorm` and the capacity search each
 * mapped their own and the copies had drifted (issue 46); each now fills this in and calls
 * `exitCodeOf`.
 */
export interface RunEnding {
  /** The verdict: the summary's, or what a capacity search amounts to (capacity/search-status.ts). */
  status: VerdictStatus;
  /** How the run ended (summary.run.end). */
  end?: RunEnd;
  /** The preflight found the key refused: nothing was sent, as with a bad flag. */
  keyRefused?: boolean;
  /** This shard did not start its schedule (`--barrier`, `--start-at`). */
  halt?: Halt;
  /** A report could not be written. */
  reportsFailed?: boolean;
  /** A trace phase met a row that does not parse: its arrivals stopped there (a configuration error). */
  traceError?: boolean;
}

/** A shard that did not start: its peers never came (3), stopped first (3), it ran before (2), Ctrl-C. */
export const HALT_EXIT: Record<Halt['exit'], ExitCode> = {
  usage: ExitCode.Usage,
  aborted: ExitCode.Aborted,
  interrupted: ExitCode.Interrupted,
};

/** True when the preflight found the key refused, so the load never started. */
export function keyRefused(outcome: Pick<RunOutcome, 'preflight'>): boolean {
  return outcome.preflight?.fatal?.kind === 'key-refused';
}

/** A finished run's ending, from its summary and the runner's outcome. */
export function endingOf(
  summary: Pick<Summary, 'run' | 'verdict'>,
  outcome: Pick<RunOutcome, 'preflight' | 'traceError'>,
): RunEnding {
  return {
    status: summary.verdict.status,
    end: summary.run.end,
    keyRefused: keyRefused(outcome),
    traceError: outcome.traceError !== undefined,
  };
}

/** The exit code, in order of precedence: a refused key, a halt, a broken run or output, a bad trace row, the verdict. */
export function exitCodeOf(e: RunEnding): ExitCode {
  if (e.keyRefused) return ExitCode.Usage;
  if (e.halt) return HALT_EXIT[e.halt.exit];
  // Issue 12: a run stopped by a failed write, or a report not written, is exit 3, not a Ctrl-C.
  if (e.end === 'output-failed' || e.end === 'shard-failed' || e.reportsFailed) return ExitCode.Aborted;
  // The run did not play what the scenario asked: whatever was measured, the scenario is at fault.
  if (e.traceError === true) return ExitCode.Usage;
  return VERDICT_EXIT[e.status];
}
