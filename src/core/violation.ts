import type { JobStatus } from './job-status.js';
import type { KnownMatch } from './known-deviation.js';
import type { Operation } from './operation.js';

export type Severity = 'error' | 'warning';

/** One observation in a job's timeline, as the checks saw it. */
export interface TimelineEntry {
  at: number;
  op: Operation | 'webhook';
  status?: JobStatus | number;
}

/** A broken rule, with what a user needs to see it and reproduce it. */
export interface Violation {
  /** Stable check id, `family.name`. */
  id: string;
  severity: Severity;
  at: number;
  message: string;
  op?: Operation;
  jobId?: string;
  evidence: {
    /** `seq` of the record cited: a record that was exchanged (or received), never one rebuilt. */
    seq?: number;
    request?: string;
    status?: number;
    body?: string;
    timeline?: TimelineEntry[];
  };
  /** A curl command that uses `$JOBSTORM_API_KEY`, never the key. */
  repro?: string;
  /**
   * The entry of the run's known deviations that matches it: the finding is known (shown, counted,
   * fails nothing) unless that entry had expired. Absent: no entry matches, the finding is new.
   */
  known?: KnownMatch;
}
