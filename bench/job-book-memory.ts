/**
 * What the checker's job book keeps per job it follows (issue 17: under load the book is most of
 * what survives scavenges and is promoted, and its growth sets how often a mark-compact pauses
 * the run). Touches N jobs and adds k timeline entries to each, as the checks do for a job seen
 * k times, then prints the retained heap per job after a full GC, for each k given.
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

function bytesPerJob(entries: number): number {
  // The limits the checker uses (src/check/checker.ts); maxJobs above N, so nothing is dropped.
  const book = new JobBook({ webhookHoldMs: 45_000, holdMs: 2_000, maxJobs: jobs + 1, maxAfterlife: 500_000 });
  const ids = Array.from({ length: jobs }, (_, i) => `job-${String(i).padStart(10, '0')}-0f3c9a`);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < jobs; i++) {
    const job = book.touch(ids[i] ?? '');
    for (let k = 0; k < entries; k++) book.addTimeline(job, { at: i + k * 0.5, op: k === 0 ? 'run' : 'status', status: STATUSES[k % STATUSES.length] });
  }
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / jobs;
  if (book.size !== jobs) throw new Error(`the book holds ${String(book.size)} jobs, not ${String(jobs)}`);
  return bytes;
}

console.log(`job book: retained heap per job, ${String(jobs)} jobs (ids of 25 characters held by the caller, not counted)`);
for (const k of counts) console.log(`  ${String(k).padStart(2)} timeline entries: ${bytesPerJob(k).toFixed(0)} bytes per job`);
