import type { FinalState, JobStatus } from '../core/job-status.js';
import type { OutputFacts } from '../core/record.js';

/** What opened a job: its submission (`run`, `runsync`), or a retry of a job not in flight. */
export type JobOpening = 'submit' | 'retry';

/**
 * What one record did to its job, as JobFold worked it out; every consumer (the report's job
 * metrics, the exported job series, the checks' job book) reads this instead of the record. The
 * fold hands back the same object for every record, cleared each time, so folding allocates
 * nothing: read it before the next record is folded, or copy it (`copyFrom`, see JobEventLog).
 */
export class JobEvents {
  /**
   * The job an exchange is about: the runner's tag, else the id in its answer. Set whatever the
   * answer, so a consumer that follows jobs the fold does not (one never seen submitted) has it.
   */
  jobId: string | undefined = undefined;
  /**
   * The job state the answer's body showed, whatever its HTTP status: the fold trusts only
   * accepted answers (2xx), the checks only 200s, so each consumer decides which to believe.
   */
  shown: JobStatus | undefined = undefined;
  /** The record opened its job. */
  opened: JobOpening | undefined = undefined;
  /**
   * The job was already in flight, opened by a request in the warm-up, and this measured request
   * opened it again: measured consumers follow it from here; others had it open already.
   */
  reopened = false;
  /** The job's first stream chunk (per opening). */
  firstChunk = false;
  /** The first final state an accepted answer showed; the job is closed. */
  final: FinalState | undefined = undefined;
  /** A lookup of the job answered 404: it is closed as lost. */
  lost = false;
  /** The job was opened in the warm-up: measured consumers leave out all of the above. */
  warm = false;
  /** From the `sentAt` of the request that opened the job to this record's end (first chunk, final). */
  sinceOpenMs = 0;
  /** `delayTime` and `executionTime` of a final answer, when it carried them. */
  delayMs: number | undefined = undefined;
  executionMs: number | undefined = undefined;
  /**
   * With `final`, for a job read through `/stream`: the output its reads carried, each read's in
   * order (none when it streamed nothing), and the `sentAt` of the request that opened it (the
   * token timings start there). Undefined for a job never read through `/stream`.
   */
  output: { openedAt: number; parts: readonly OutputFacts[] } | undefined = undefined;
  /**
   * Opening this record's job pushed the oldest job in flight out (the fold's cap): at most one
   * per record, since a record opens at most one job. Its warm-up flag and shard say whose it was.
   */
  evicted = false;
  evictedWarm = false;
  evictedShard: string | undefined = undefined;

  /** The warm-up of the fold that fills this object, so a consumer can refuse a mismatched one. */
  constructor(readonly warmupMs: number) {}

  clear(): void {
    this.jobId = undefined;
    this.shown = undefined;
    this.opened = undefined;
    this.reopened = false;
    this.firstChunk = false;
    this.final = undefined;
    this.lost = false;
    this.warm = false;
    this.delayMs = undefined;
    this.executionMs = undefined;
    this.output = undefined;
    this.evicted = false;
    this.evictedWarm = false;
    this.evictedShard = undefined;
  }

  /** Takes every fact of `other` (the fold's object, about to be reused): for a consumer that reads later. */
  copyFrom(other: JobEvents): void {
    this.jobId = other.jobId;
    this.shown = other.shown;
    this.opened = other.opened;
    this.reopened = other.reopened;
    this.firstChunk = other.firstChunk;
    this.final = other.final;
    this.lost = other.lost;
    this.warm = other.warm;
    this.sinceOpenMs = other.sinceOpenMs;
    this.delayMs = other.delayMs;
    this.executionMs = other.executionMs;
    this.output = other.output;
    this.evicted = other.evicted;
    this.evictedWarm = other.evictedWarm;
    this.evictedShard = other.evictedShard;
  }
}
