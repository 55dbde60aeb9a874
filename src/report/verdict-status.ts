// The verdict's own types, apart from the code that decides it: the summary holds a verdict,
// and the code that decides it reads the summary.

/** How a run ended, as the runner saw it (summary.json `run.end`). */
export type RunEnd =
  | 'completed'
  | 'interrupted'
  | 'unreachable'
  | 'output-failed'
  | 'shard-failed'
  /** A threshold with abortOnFail failed while the run went: arrivals stopped, the rest drained. */
  | 'aborted';

/**
 * The verdict is the product: never "passed" for a run that could not have failed (DESIGN
 * "Metrics and reports"). In order of precedence:
 * - interrupted: Ctrl-C, the output could not be written, or a `--workers` thread failed (the
 *   others were stopped); results are partial;
 * - unreachable: no request got an answer;
 * - failed: a threshold with abortOnFail stopped the run (`aborted`), an error-severity violation, a threshold whose value broke it, or more than 1% of the
 *   requests left without a usable answer (unless the scenario bounds `errors` itself);
 * - inconclusive: the run did not exercise what it set out to judge (no job accepted, jobs
 *   followed but none seen final, every answer a 4xx, a threshold with no samples, or no check
 *   judged anything);
 * - passed.
 */
export type VerdictStatus = 'passed' | 'failed' | 'inconclusive' | 'unreachable' | 'interrupted';

export interface Verdict {
  status: VerdictStatus;
  /** Why, in a few plain sentences: the first is the headline. */
  reasons: string[];
  /**
   * jobstorm itself was the bottleneck for part of the run: whatever the status, its latencies
   * then include the generator's own queueing (summary `generatorLimited` says when).
   */
  generatorLimited?: true;
}
