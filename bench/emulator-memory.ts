/**
 * Heap cost of retained jobs (issue 3 "Speed and memory": one million finished jobs retained
 * cost < 1 GB of heap; expired jobs are freed, no growth over a soak in which retention expires).
 *
 *   node --expose-gc --import tsx bench/emulator-memory.ts [--jobs 1000000]
 *
 * Drives the emulator core directly on a manual clock (1M jobs through HTTP would take minutes
 * and measure the client, not the store), but each body goes the HTTP layer's way: JSON text,
 * JSON.parse, the contract's zod schema, submit. The small input is echoed as output.
 */
import { LIMITS } from '../contracts/queue/limits.js';
import { SubmissionBodySchema } from '../contracts/queue/schemas.js';
import { ManualClock } from '../src/core/manual-clock.js';
import { EmulatorCore } from '../src/emulator/emulator-core.js';
import { resolveOptions } from '../src/emulator/options.js';

const args = process.argv.slice(2);
const at = args.indexOf('--jobs');
const JOBS = at >= 0 ? Number(args[at + 1]) : 1_000_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  console.error('run with node --expose-gc --import tsx bench/emulator-memory.ts');
  process.exit(2);
}

function heapMB(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1048576;
}

const clock = new ManualClock();
const core = new EmulatorCore(
  clock,
  resolveOptions({ workersMax: 100, coldStartMs: 0, profile: 'instant' }),
  () => Promise.resolve(200),
);
const ep = core.endpoints.get('jobstorm');
if (ep === undefined) throw new Error('no endpoint');

function addFinished(n: number, from: number): void {
  for (let done = 0; done < n;) {
    const batch = Math.min(10_000, n - done);
    // The HTTP path: JSON text → JSON.parse → the contract's zod schema → submit.
    for (let i = 0; i < batch; i++)
      ep?.submit(
        SubmissionBodySchema.parse(JSON.parse(`{"input":{"prompt":"hello","n":${String(from + done + i)}}}`)),
        false,
      );
    clock.advance(0);
    done += batch;
  }
}

const base = heapMB();
console.log(`baseline heap ${base.toFixed(1)} MB`);
const t0 = performance.now();
addFinished(JOBS, 0);
const full = heapMB();
const health = ep.health() as { jobs: { completed: number } };
console.log(
  `${String(ep.jobs.size)} finished jobs retained (${String(health.jobs.completed)} completed) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
console.log(
  `heap ${full.toFixed(1)} MB → ${(full - base).toFixed(1)} MB for the jobs, ${(((full - base) * 1048576) / JOBS).toFixed(0)} bytes per job (goal: < 1024 MB in all)`,
);

clock.advance(LIMITS.retentionRun);
console.log(
  `after retention (30 min of manual clock): ${String(ep.jobs.size)} jobs retained, heap ${heapMB().toFixed(1)} MB, timers pending ${String(clock.pending)}`,
);

// Soak: a steady flow where retention keeps expiring; the heap must level off, not grow.
const perStep = Math.round(JOBS / 6);
console.log(`soak: ${String(perStep)} jobs per 10 min of manual clock for 3 h (retention 30 min)`);
const soak: number[] = [];
for (let step = 1; step <= 18; step++) {
  addFinished(perStep, JOBS + step * perStep);
  clock.advance(10 * 60_000);
  const mb = heapMB();
  soak.push(mb);
  if (step % 3 === 0)
    console.log(
      `  t=${String(step * 10).padStart(3)} min  retained ${String(ep.jobs.size).padStart(8)}  heap ${mb.toFixed(1)} MB`,
    );
}
const steady = soak.slice(3);
console.log(
  `soak heap from step 4 on: min ${Math.min(...steady).toFixed(1)} MB, max ${Math.max(...steady).toFixed(1)} MB, last − first ${((steady.at(-1) ?? 0) - (steady[0] ?? 0)).toFixed(1)} MB`,
);
await core.close();
