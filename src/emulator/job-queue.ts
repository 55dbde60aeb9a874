import type { Job } from './job.js';

/**
 * The FIFO queue of one endpoint. Cancel, purge and ttl take jobs out of the middle; instead of
 * searching, they leave the entry behind and `shift` skips entries that are no longer waiting. An
 * entry remembers the job's retry count when it was queued, so a job cancelled and later retried
 * is not taken twice through its old entry.
 */
export class JobQueue {
  private jobs: Job[] = [];
  private gens: number[] = [];
  private head = 0;

  push(job: Job): void {
    this.jobs.push(job);
    this.gens.push(job.retries);
  }

  /** The next job still waiting, or undefined. */
  shift(): Job | undefined {
    while (this.head < this.jobs.length) {
      const job = this.jobs[this.head] as Job;
      const gen = this.gens[this.head] as number;
      this.head++;
      if (isWaiting(job, gen)) {
        this.compact();
        return job;
      }
    }
    this.clear();
    return undefined;
  }

  /** Every job still waiting, in order, and empties the queue. */
  drain(): Job[] {
    const out: Job[] = [];
    for (let i = this.head; i < this.jobs.length; i++) {
      const job = this.jobs[i] as Job;
      if (isWaiting(job, this.gens[i] as number)) out.push(job);
    }
    this.clear();
    return out;
  }

  /** Entries held, including stale ones (admin view). */
  get entries(): number {
    return this.jobs.length - this.head;
  }

  private clear(): void {
    this.jobs = [];
    this.gens = [];
    this.head = 0;
  }

  /** Drops the consumed prefix once it is most of the array, so memory follows the queue length. */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.jobs.length) {
      this.jobs = this.jobs.slice(this.head);
      this.gens = this.gens.slice(this.head);
      this.head = 0;
    }
  }
}

function isWaiting(job: Job, gen: number): boolean {
  return job.status === 'IN_QUEUE' && !job.gone && job.retries === gen;
}
