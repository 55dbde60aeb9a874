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

// Sets: these run for every answer of a run, where a scan of string compares adds up.
const STATUS_SET: ReadonlySet<unknown> = new Set(JOB_STATUSES);
const FINAL_SET: ReadonlySet<unknown> = new Set(FINAL_STATUSES);

export function isJobStatus(value: unknown): value is JobStatus {
  return STATUS_SET.has(value);
}

export function isFinalStatus(value: unknown): boolean {
  return FINAL_SET.has(value);
}
