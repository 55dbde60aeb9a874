/** The six job states of SPEC "States and transitions". */
export const JOB_STATUSES = [
  'IN_QUEUE',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TIMED_OUT',
] as const;

export type JobStatus = (typeof JOB_STATUSES)[number];

export const FINAL_STATUSES: readonly JobStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

/** A state a job ends in: what the job fold closes a job with, and what the reports count by. */
export type FinalState = 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT';
export const FINAL_STATES: readonly FinalState[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

// Sets: these run for every answer of a run, where a scan of string compares adds up.
const STATUS_SET: ReadonlySet<unknown> = new Set(JOB_STATUSES);
const FINAL_SET: ReadonlySet<unknown> = new Set(FINAL_STATUSES);

export function isJobStatus(value: unknown): value is JobStatus {
  return STATUS_SET.has(value);
}

export function isFinalStatus(value: unknown): boolean {
  return FINAL_SET.has(value);
}

const STATUS_NUMBER = new Map<unknown, number>(JOB_STATUSES.map((s, i) => [s, i + 1]));

/** A status as a small number, for packed job records: 0 for none, k for JOB_STATUSES[k - 1]. */
export function statusNumber(status: JobStatus | undefined): number {
  return status === undefined ? 0 : (STATUS_NUMBER.get(status) ?? 0);
}

/** The status `statusNumber` gave `n` (undefined for 0 or a number it never gives). */
export function statusFromNumber(n: number): JobStatus | undefined {
  return n === 0 ? undefined : JOB_STATUSES[n - 1];
}
