import type { FinalState } from './metrics-data.js';

/** What opened a job: its submission (`run`, `runsync`), or a retry of a job not in flight. */
export type JobOpening = 'submit' | 'retry';

/**
 * What one record did to its job, as JobFold worked it out; every consumer (the report's job
 * metrics, the exported job series) reads this instead of the record. The fold hands back the same
 * object for every record, cleared each time, so folding allocates nothing: read it before the
 * next record is folded.
 */
export class JobEvents {
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
   * Opening this record's job pushed the oldest job in flight out (the fold's cap): at most one
   * per record, since a record opens at most one job. Its warm-up flag and shard say whose it was.
   */
  evicted = false;
  evictedWarm = false;
  evictedShard: string | undefined = undefined;

  /** The warm-up of the fold that fills this object, so a consumer can refuse a mismatched one. */
  constructor(readonly warmupMs: number) {}

  clear(): void {
    this.opened = undefined;
    this.reopened = false;
    this.firstChunk = false;
    this.final = undefined;
    this.lost = false;
    this.warm = false;
    this.delayMs = undefined;
    this.executionMs = undefined;
    this.evicted = false;
    this.evictedWarm = false;
    this.evictedShard = undefined;
  }
}
