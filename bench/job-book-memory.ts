/**
 * What the checker's job book keeps per job it follows (issue 17: under load the book is most of
 * what survives scavenges and is promoted, and its growth sets how often a mark-compact pauses
 * the run). Touches N jobs and adds k timeline entries to each, as the checks do for a job seen
 * k times, then prints the retained heap per job after a full GC, for each k given, and what a
 * full mark-compact costs with that book held (the median of five forced ones; the ids, held by the
 * caller, are traced too and are the same for every k): on one core that pause, and the marking
 * before it, is what stalls the event loop. Then every job ends and is folded into the book's
 * afterlife, where a long run keeps up to 500,000 of them: the same figures for that.
 *
 *   npx tsx bench/job-book-memory.ts [jobs=100000] [entries=1,2,4,8]
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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

function fullGcMs(): number {
  const pauses: number[] = [];
  for (let n = 0; n < 5; n++) {
    const t0 = performance.now();
    gc();
    pauses.push(performance.now() - t0);
  }
  return median(pauses);
}

interface Figures {
  bytes: number;
  gcMs: number;
  /** Once every job is final and folded into the afterlife (kept in brief). */
  folded: { heapBytes: number; outsideBytes: number; gcMs: number };
}

function measure(entries: number): Figures {
  // The limits the checker uses (src/check/checker.ts); maxJobs above N, so nothing is dropped.
  const book = new JobBook({
    webhookHoldMs: 45_000,
    holdMs: 2_000,
    maxJobs: jobs + 1,
    maxAfterlife: 500_000,
  });
  // Flat strings, as ids parsed from a response body are: a template literal makes a cons string,
  // which V8 flattens the first time it is a key, in the middle of the measurement.
  const ids = Array.from({ length: jobs }, (_, i) =>
    Buffer.from(`job-${String(i).padStart(10, '0')}-0f3c9a`, 'latin1').toString('latin1'),
  );
  // A job folded and brought back by a late poll first, as in a real run: a field the revival
  // writes from the afterlife's rows as a double would turn into a boxed number in every job after.
  reviveOne(book);
  gc();
  const before = process.memoryUsage();
  for (let i = 0; i < jobs; i++) {
    const job = book.touch(ids[i] ?? '');
    // Times as the checks set them for a submitted, accepted and polled job: fractional ms.
    job.submittedAt = i + 0.125;
    job.acceptedAt = i + 0.375;
    for (let k = 0; k < entries; k++)
      book.addTimeline(job, i + k * 0.5 + 0.25, k === 0 ? 'run' : 'status', STATUSES[k % STATUSES.length]);
    if (entries > 1) job.queuedAt = i + 0.625;
  }
  gc();
  const bytes = (process.memoryUsage().heapUsed - before.heapUsed) / jobs;
  if (book.size !== jobs) throw new Error(`the book holds ${String(book.size)} jobs, not ${String(jobs)}`);
  const gcMs = fullGcMs();
  // Every job ends, its hold passes, and the book folds it: what a long run keeps of each.
  for (let i = 0; i < jobs; i++) {
    const job = book.touch(ids[i] ?? '');
    job.startedBy = i + 0.875;
    job.finalAt = i + 1.125;
    job.last = 'COMPLETED';
    book.holdUntilFinal(job, i + 1.125);
  }
  book.advance(Infinity, () => undefined);
  if (book.size !== 0 || [...book.known()].length !== jobs + 1)
    throw new Error('the book did not fold every job into its afterlife');
  gc();
  const after = process.memoryUsage();
  const folded = {
    heapBytes: (after.heapUsed - before.heapUsed) / jobs,
    outsideBytes: (after.arrayBuffers - before.arrayBuffers) / jobs,
    gcMs: fullGcMs(),
  };
  return { bytes, gcMs, folded };
}

function reviveOne(book: JobBook): void {
  const job = book.touch('late-poll');
  job.submittedAt = 0.5;
  job.fired = 5;
  job.last = 'COMPLETED';
  job.retries = 1;
  book.holdUntilFinal(job, 1);
  book.advance(Infinity, () => undefined);
  const back = book.touch('late-poll');
  if (back.fired !== 5 || back.last !== 'COMPLETED')
    throw new Error('the late-polled job did not come back from the afterlife');
  book.holdUntilFinal(back, 2);
  book.advance(Infinity, () => undefined);
}

if (process.env.JOB_BOOK_MEMORY_ONE === '1') {
  // One count per process: what one measurement freed (a backing store swept late) skewed the next.
  const k = counts[0] ?? 1;
  const { bytes, gcMs, folded } = measure(k);
  console.log(
    `  ${String(k).padStart(2)} timeline entries: held ${bytes.toFixed(0)} bytes per job, full GC ${gcMs.toFixed(1)} ms; folded ${folded.heapBytes.toFixed(0)} bytes heap + ${folded.outsideBytes.toFixed(0)} outside per job, full GC ${folded.gcMs.toFixed(1)} ms`,
  );
} else {
  console.log(
    `job book: retained heap per job, ${String(jobs)} jobs (ids of 25 characters held by the caller, not counted)`,
  );
  const self = fileURLToPath(import.meta.url);
  for (const k of counts) {
    const out = execFileSync(process.execPath, [...process.execArgv, self, String(jobs), String(k)], {
      env: { ...process.env, JOB_BOOK_MEMORY_ONE: '1' },
      encoding: 'utf8',
    });
    process.stdout.write(out);
  }
}
