/**
 * Memory over a long run at a steady rate (issue 4, "Speed": memory stays flat over a 10-minute
 * run, no per-request growth beyond in-flight jobs). Flow mode (`run`, then `poll` until final)
 * against the bare flow server, with the sinks of `jobstorm run --no-check` (metrics) or of a
 * default run (metrics + live checks). Every 10 s: a full GC (when run with --expose-gc), then
 * RSS and heap; at the end, the heap's growth per request after the first minute (medians of
 * the first and last thirds, on samples with a usual number of jobs in flight). Lateness here
 * includes the forced full GCs: read scheduling figures from runner-flow.ts.
 *
 *   node --expose-gc --import tsx bench/runner-memory.ts [minutes=10] [arrivalsPerSecond=800] [sink=metrics|checks] [sampleSeconds=10]
 *   (npx tsx bench/runner-memory.ts ... works too, without the forced GC: noisier heap figures)
 */
import { Checker } from '../src/check/checker.js';
import type { JobstormRecord } from '../src/core/record.js';
import { JobFold } from '../src/fold/job-fold.js';
import { RunMetrics } from '../src/metrics/run-metrics.js';
import { runScenario } from '../src/runner/runner.js';
import { canPin, flowScenario, median, pinSelf, startFlowServer, type Sink } from './runner-bench-setup.js';
import { systemClock } from '../src/core/clock.js';

const minutes = Number(process.argv[2] ?? 10);
const rate = Number(process.argv[3] ?? 800);
const sink = (process.argv[4] ?? 'metrics') as Sink;
const sampleSeconds = Number(process.argv[5] ?? 10);

interface Sample {
  t: number;
  requests: number;
  inFlight: number;
  rss: number;
  heap: number;
  external: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
const MB = 1024 * 1024;

const pinned = pinSelf();
const server = await startFlowServer();
const samples: Sample[] = [];
const metrics = sink === 'none' ? undefined : new RunMetrics();
const fold = new JobFold();
let checker: Checker | undefined;
const onRecord = (r: JobstormRecord): void => {
  if (r.type === 'run' && sink === 'checks') checker = new Checker(r);
  const jobs = fold.add(r);
  metrics?.add(r, jobs);
  checker?.add(r, jobs);
};
const sample = (t: number, requests: number, inFlight: number): void => {
  gc?.();
  const m = process.memoryUsage();
  const s = { t, requests, inFlight, rss: m.rss, heap: m.heapUsed, external: m.external + m.arrayBuffers };
  samples.push(s);
  console.log(
    `${(t / 1000).toFixed(0).padStart(5)} s  requests ${String(requests).padStart(9)}  in flight ${String(inFlight).padStart(5)}  rss ${(s.rss / MB).toFixed(1).padStart(7)} MB  heap ${(s.heap / MB).toFixed(1).padStart(7)} MB  external ${(s.external / MB).toFixed(1).padStart(6)} MB`,
  );
};

console.log(
  `pinned: ${pinned && canPin ? 'runner CPU 0, server CPU 1' : 'no'}; sinks: ${sink}; forced GC before samples: ${gc ? 'yes' : 'no (run with node --expose-gc --import tsx)'}`,
);
console.log(
  `${String(minutes)} min at ${String(rate)} arrivals/s (≈${String(rate * 3)} req/s), a sample every ${String(sampleSeconds)} s`,
);
sample(0, 0, 0);
try {
  const outcome = await runScenario({
    clock: systemClock,
    scenario: flowScenario(rate, minutes * 60),
    target: { baseUrl: `${server.origin}/v2/ep`, apiKey: 'bench-key', ownsEndpoint: false },
    runId: 'bench-memory',
    onRecord,
    sampleHealth: false,
    progressEveryMs: sampleSeconds * 1000,
    onProgress: (p) => sample(p.elapsedMs, p.requests, p.inFlight),
  });
  checker?.finish();
  // Growth per request after the first minute (pools, JIT and histograms have settled by then),
  // judged on samples with a usual number of jobs in flight: a stalled server piles up
  // iterations, and their memory is in-flight memory, given back when they finish.
  const later = samples.filter((s) => s.t >= 60_000);
  const usual = median(later.map((s) => s.inFlight));
  const steady = later.filter((s) => s.inFlight <= Math.max(50, 3 * usual));
  const third = Math.floor(steady.length / 3);
  if (third >= 1) {
    const head = steady.slice(0, third);
    const tail = steady.slice(-third);
    const heapA = median(head.map((s) => s.heap));
    const heapB = median(tail.map((s) => s.heap));
    const span = median(tail.map((s) => s.requests)) - median(head.map((s) => s.requests));
    const perRequest = (heapB - heapA) / span;
    const heaps = later.map((s) => s.heap);
    console.log(
      `after the first minute: heap median ${(heapA / MB).toFixed(1)} MB (first third) → ${(heapB / MB).toFixed(1)} MB (last third) over ${String(span)} requests: ${perRequest.toFixed(3)} bytes/request; min ${(Math.min(...heaps) / MB).toFixed(1)}, max ${(Math.max(...heaps) / MB).toFixed(1)} MB`,
    );
    const peak = later.reduce((a, b) => (b.inFlight > a.inFlight ? b : a));
    if (peak.inFlight > 3 * usual && peak.inFlight > 50) {
      console.log(
        `  (${String(later.length - steady.length)} samples left out with unusually many jobs in flight, up to ${String(peak.inFlight)}: ≈${((peak.heap - heapA) / peak.inFlight / 1024).toFixed(1)} KB of heap per in-flight iteration, given back afterwards)`,
      );
    }
    console.log(
      `flat (heap growth under 1 byte/request, or under 5 MB in all): ${Math.abs(perRequest) < 1 || Math.abs(heapB - heapA) < 5 * MB ? 'yes' : 'NO'}`,
    );
  } else {
    console.log('run too short for a steady-state figure (give minutes ≥ 2)');
  }
  console.log(
    `requests ${String(outcome.counters.requests)}, errors ${String(outcome.counters.errors)}, dropped ${String(outcome.counters.dropped)}, lateness p99 ${outcome.latenessP99Ms.toFixed(1)} ms`,
  );
} finally {
  server.stop();
}
