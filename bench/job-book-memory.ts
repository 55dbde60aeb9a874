/**
 * What the checker's job book keeps per job it follows (issue 17: under load the book is most of
 * what survives scavenges and is promoted, and its growth sets how often a mark-compact pauses
 * the run). Touches N jobs and adds k timeline entries to each, as the checks do for a job seen
 * k times, then prints the retained heap per job after a full GC, for each k given, and what a
 * full mark-compact costs with that book held (the median of five forced ones; the ids, held by the
 * caller, are traced too and are the same for every k): on one core that pause, and the marking
 * before it, is what stalls the event loop.
 *
 *   npx tsx bench/job-book-memory.ts [jobs=100000] [entries=1,2,4,8]
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { JobBook } from '../src/check/job-book.js';
import type { JobStatus } from '../src/core/job-status.js';

const jobs = Number(process.argv[2] ?? 100_000);
const counts = (process.argv[3] ?? '1,2,4,8').split(',').map(Number);
if (!(jobs > 0) || counts.some((k) => !Number.isInteger(k) || k < 0)) {
  console.error('usage: npx tsx bench/job-book-memory.ts [jobs=100000] [entries=1,2,4,8]');
  process.exit(2);
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const STATUSES: JobStatus[] = ['IN_QUEUE', 'IN_QUEUE', 'IN_PROGRESS', 'IN_PROGRESS'];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

function measure(entries: number): { bytes: number; gcMs: number } {
  // The limits the checker uses (src/check/checker.ts); maxJobs above N, so nothing is dropped.
  const book = new JobBook({ webhookHoldMs: 45_000, holdMs: 2_000, maxJobs: jobs + 1, maxAfterlife: 500_000 });
  const ids = Array.from({ length: jobs }, (_, i) => `job-${String(i).padStart(10, '0')}-0f3c9a`);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < jobs; i++) {
    const job = book.touch(ids[i] ?? '');
    // Times as the checks set them for a submitted, accepted and polled job: fractional ms.
    job.submittedAt = i + 0.125;
    job.acceptedAt = i + 0.375;
    for (let k = 0; k < entries; k++) book.addTimeline(job, i + k * 0.5 + 0.25, k === 0 ? 'run' : 'status', STATUSES[k % STATUSES.length]);
    if (entries > 1) job.queuedAt = i + 0.625;
  }
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / jobs;
  if (book.size !== jobs) throw new Error(`the book holds ${String(book.size)} jobs, not ${String(jobs)}`);
  const pauses: number[] = [];
  for (let n = 0; n < 5; n++) {
    const t0 = performance.now();
    gc();
    pauses.push(performance.now() - t0);
  }
  return { bytes, gcMs: median(pauses) };
}

console.log(`job book: retained heap per job, ${String(jobs)} jobs (ids of 25 characters held by the caller, not counted)`);
for (const k of counts) {
  const { bytes, gcMs } = measure(k);
  console.log(`  ${String(k).padStart(2)} timeline entries: ${bytes.toFixed(0)} bytes per job, full GC ${gcMs.toFixed(1)} ms`);
}
