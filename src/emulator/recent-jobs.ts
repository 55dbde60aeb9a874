import type { Job } from './job.js';

/**
 * The last `size` jobs submitted, in a ring: GET /requests lists them without walking every
 * retained job. Deleted jobs are skipped when listed.
 */
export class RecentJobs {
  private readonly ring: (Job | undefined)[];
  private next = 0;

  constructor(private readonly size: number) {
    this.ring = new Array<Job | undefined>(size).fill(undefined);
  }

  push(job: Job): void {
    this.ring[this.next] = job;
    this.next = (this.next + 1) % this.size;
  }

  /** Newest first. */
  list(): Job[] {
    const out: Job[] = [];
    for (let i = 1; i <= this.size; i++) {
      const job = this.ring[(this.next - i + this.size) % this.size];
      if (job !== undefined && !job.gone) out.push(job);
    }
    return out;
  }
}
