import { FINAL_STATUSES, type JobStatus } from '../../src/core/job-status.js';

export { JOB_STATUSES, FINAL_STATUSES, isFinalStatus, type JobStatus } from '../../src/core/job-status.js';

/** Who moves a job: the service on its own, or a client action. */
export type Mover =
  'server' | 'run' | 'runsync' | 'cancel' | 'retry' | 'purge' | 'ttl-expiry' | 'retention-expiry';

export interface Transition {
  from: JobStatus | 'none' | 'any' | 'any-final';
  by: Mover;
  to: JobStatus | 'deleted' | 'results-gone';
  condition: string;
  cite: string;
}

/**
 * SPEC "States and transitions", plus the server moves the spec leaves "not shown" but every
 * queue must make (a worker takes the job; the handler ends it; executionTimeout ends it).
 */
export const TRANSITIONS: readonly Transition[] = [
  {
    from: 'none',
    by: 'run',
    to: 'IN_QUEUE',
    condition: 'request accepted',
    cite: 'SPEC "States and transitions" row 1',
  },
  {
    from: 'none',
    by: 'runsync',
    to: 'COMPLETED',
    condition: 'job completes within the wait',
    cite: 'SPEC "States and transitions" row 2',
  },
  {
    from: 'IN_QUEUE',
    by: 'cancel',
    to: 'CANCELLED',
    condition: 'job still queued',
    cite: 'SPEC "States and transitions" row 3',
  },
  {
    from: 'IN_PROGRESS',
    by: 'cancel',
    to: 'CANCELLED',
    condition: 'job running',
    cite: 'SPEC "States and transitions" row 4',
  },
  {
    from: 'FAILED',
    by: 'retry',
    to: 'IN_QUEUE',
    condition: 'results not expired',
    cite: 'SPEC "States and transitions" row 5',
  },
  {
    from: 'TIMED_OUT',
    by: 'retry',
    to: 'IN_QUEUE',
    condition: 'results not expired',
    cite: 'SPEC "States and transitions" row 6',
  },
  {
    from: 'any',
    by: 'ttl-expiry',
    to: 'deleted',
    condition: 'ttl elapsed; status checks return 404',
    cite: 'SPEC "States and transitions" row 7; "policy object" rule 2',
  },
  {
    from: 'any-final',
    by: 'retention-expiry',
    to: 'results-gone',
    condition: 'retention elapsed; job cannot be retried',
    cite: 'SPEC "States and transitions" row 8; "Result retention"',
  },
  {
    from: 'IN_QUEUE',
    by: 'purge',
    to: 'CANCELLED',
    condition: 'purge removes jobs waiting in the queue',
    cite: 'SPEC "States and transitions" (purge paragraph)',
  },
  {
    from: 'IN_QUEUE',
    by: 'server',
    to: 'IN_PROGRESS',
    condition: 'a worker takes the job',
    cite: 'DESIGN "The emulator"; real-service.md "Worker protocol"',
  },
  {
    from: 'IN_PROGRESS',
    by: 'server',
    to: 'COMPLETED',
    condition: 'handler returned output',
    cite: 'SPEC "Job"',
  },
  {
    from: 'IN_PROGRESS',
    by: 'server',
    to: 'FAILED',
    condition: 'handler raised an error',
    cite: 'SPEC "Errors" (failed jobs)',
  },
  {
    from: 'IN_PROGRESS',
    by: 'server',
    to: 'TIMED_OUT',
    condition: 'ran past executionTimeout',
    cite: 'SPEC "policy object" rule 1; "Errors" (timeout errors)',
  },
];

/** States a retry may start from (SPEC "POST /retry/<job_id>"). */
export const RETRYABLE: readonly JobStatus[] = ['FAILED', 'TIMED_OUT'];

/**
 * Progress rank: a poller may miss states, so an observed sequence may jump forward any number of
 * ranks, but never down.
 */
export const STATUS_RANK: Readonly<Record<JobStatus, number>> = {
  IN_QUEUE: 0,
  IN_PROGRESS: 1,
  COMPLETED: 2,
  FAILED: 2,
  CANCELLED: 2,
  TIMED_OUT: 2,
};

/** One observation of a job: a status we saw, or an action of ours the service accepted. */
export type Observation =
  { kind: 'status'; status: JobStatus } | { kind: 'action'; action: 'cancel' | 'retry' | 'purge' };

export type SequenceFault = 'backwards' | 'left-final' | 'retry-not-allowed' | 'cancelled-unprompted';

export type SequenceVerdict =
  { ok: true } | { ok: false; index: number; fault: SequenceFault; message: string };

/** Where an observed sequence stands after the observations judged so far. */
export interface SequenceState {
  /** The status the sequence last showed (a retry of ours puts it back IN_QUEUE). */
  shown?: JobStatus | undefined;
  /** A cancel or purge of ours came since the last retry. */
  cancelAsked: boolean;
}

export interface SequenceFaultFound {
  fault: SequenceFault;
  message: string;
}

/**
 * One step of {@link judgeObservedSequence}: the fault this observation shows, or undefined after
 * moving `state` past it. Checks that follow thousands of jobs keep the state per job and step it
 * as observations arrive, instead of keeping and re-judging each job's whole sequence.
 */
export function stepObserved(state: SequenceState, o: Observation): SequenceFaultFound | undefined {
  const last = state.shown;
  if (o.kind === 'action') {
    if (o.action === 'retry') {
      // Unknown or still-running last state: the job may have failed since we last looked.
      if (last !== undefined && FINAL_STATUSES.includes(last) && !RETRYABLE.includes(last)) {
        return {
          fault: 'retry-not-allowed',
          message: `retry accepted for a ${last} job; only FAILED or TIMED_OUT may be retried`,
        };
      }
      state.shown = 'IN_QUEUE';
      state.cancelAsked = false;
    } else {
      state.cancelAsked = true;
    }
    return undefined;
  }
  const s = o.status;
  if (s === 'CANCELLED' && !state.cancelAsked && last !== 'CANCELLED') {
    return {
      fault: 'cancelled-unprompted',
      message: 'job shown CANCELLED though we neither cancelled nor purged it',
    };
  }
  if (last !== undefined) {
    if (FINAL_STATUSES.includes(last) && s !== last) {
      return {
        fault: 'left-final',
        message: `job left final state ${last} for ${s} without a retry of ours`,
      };
    }
    if (STATUS_RANK[s] < STATUS_RANK[last]) {
      return { fault: 'backwards', message: `job went back from ${last} to ${s}` };
    }
  }
  state.shown = s;
  return undefined;
}

/**
 * Is this observed sequence legal for a poller that may miss intermediate states? It may skip
 * forward, never go back, never leave a final state except through a retry we sent (accepted
 * only from FAILED or TIMED_OUT), and may show CANCELLED only after our cancel or purge.
 */
export function judgeObservedSequence(observations: readonly Observation[]): SequenceVerdict {
  const state: SequenceState = { cancelAsked: false };
  for (const [index, o] of observations.entries()) {
    const found = stepObserved(state, o);
    if (found) return { ok: false, index, ...found };
  }
  return { ok: true };
}

/** Observation objects without allocating one per record (they carry no identity). */
export const STATUS_OBSERVATION: Readonly<Record<JobStatus, Observation>> = {
  IN_QUEUE: { kind: 'status', status: 'IN_QUEUE' },
  IN_PROGRESS: { kind: 'status', status: 'IN_PROGRESS' },
  COMPLETED: { kind: 'status', status: 'COMPLETED' },
  FAILED: { kind: 'status', status: 'FAILED' },
  CANCELLED: { kind: 'status', status: 'CANCELLED' },
  TIMED_OUT: { kind: 'status', status: 'TIMED_OUT' },
};

export const ACTION_OBSERVATION: Readonly<Record<'cancel' | 'retry' | 'purge', Observation>> = {
  cancel: { kind: 'action', action: 'cancel' },
  retry: { kind: 'action', action: 'retry' },
  purge: { kind: 'action', action: 'purge' },
};
