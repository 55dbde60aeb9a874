/**
 * The one exit-code table every command uses (k6-style named codes), so CI scripts can tell a
 * failed threshold from a broken config from an unreachable target.
 */
export const ExitCode = {
  Ok: 0,
  /** Thresholds or checks failed. */
  Failed: 1,
  /** Usage or configuration error: nothing was sent (or a trace phase stopped at a row that does not parse). */
  Usage: 2,
  /** Target unreachable or run aborted. */
  Aborted: 3,
  /** Inconclusive: the run did not exercise what it set out to judge (nothing that could fail did). */
  Inconclusive: 4,
  /** Interrupted by SIGINT or SIGTERM (128 + 2, as shells report a Ctrl-C). */
  Interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
