/**
 * Metric memory is constant in run length: feeds a 1-minute and a 10-minute synthetic run at
 * 2,000 records per second of simulated time through RunMetrics, each in its own process, and
 * prints their peak RSS and retained heap (after a forced GC) side by side. Only the per-second
 * series grows, by a bounded amount per simulated second; histograms and counters do not.
 *
 *   npx tsx bench/metrics-memory.ts            # both sides, default 60 s and 600 s
 *   npx tsx bench/metrics-memory.ts 60 1200    # other durations
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ExchangeRecord, JobstormRecord } from '../src/core/record.js';
import { JobFold } from '../src/fold/job-fold.js';
import { RunMetrics } from '../src/metrics/run-metrics.js';
import { buildSummary } from '../src/report/summary-builder.js';

const RATE = 2000;

interface Result {
  seconds: number;
  records: number;
  feedMs: number;
  summaryMs: number;
  peakRssMb: number;
  peakHeapMb: number;
  finalHeapMb: number;
  baseHeapMb: number;
  seriesJsonKb: number;
}

function mb(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

/** JS heap plus ArrayBuffers (where HDR histograms keep their counts), after a forced GC. */
function retainedHeap(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** One side: generate and feed records in-process (no I/O), sampling heap as it goes. */
function side(seconds: number): Result {
  const baseHeap = retainedHeap();
  const startedAtMs = 1_717_000_000_000;
  const m = new RunMetrics();
  const fold = new JobFold();
  const add = (r: JobstormRecord): void => m.add(r, fold.add(r));
  add({
    v: 1,
    type: 'run',
    runId: 'bench',
    scenario: 'bench',
    target: 'http://127.0.0.1',
    startedAtMs,
    ownsEndpoint: true,
  });
  let seq = 0;
  let peakHeap = 0;
  let job = 0;
  const t0 = performance.now();
  const total = seconds * RATE;
  // A small LCG: cheap and deterministic, so both sides see the same mix.
  let x = 12345;
  const rnd = (): number => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const base = {
    v: 1 as const,
    type: 'exchange' as const,
    method: 'GET',
    path: '/status/x',
    reqBytes: 0,
    resBytes: 120,
  };
  // Each job is 4 records: submit, two polls, final poll; jobs overlap so ~200 are in flight.
  for (let i = 0; i < total; i += 4) {
    const at = (i / RATE) * 1000;
    const id = `job-${job++}`;
    const lat = (): number => 2 + rnd() * 40 * (rnd() < 0.01 ? 50 : 1);
    const delay = Math.round(20 + rnd() * 300);
    const execution = Math.round(50 + rnd() * 800);
    const records: ExchangeRecord[] = [
      {
        ...base,
        seq: ++seq,
        op: 'run',
        intendedAt: at,
        sentAt: at + rnd(),
        endAt: at + lat(),
        status: rnd() < 0.01 ? 429 : 200,
        body: { id, status: 'IN_QUEUE' },
      },
      {
        ...base,
        seq: ++seq,
        op: 'status',
        jobId: id,
        intendedAt: at + 100,
        sentAt: at + 100,
        endAt: at + 100 + lat(),
        status: 200,
        body: { id, status: 'IN_QUEUE' },
      },
      {
        ...base,
        seq: ++seq,
        op: 'status',
        jobId: id,
        intendedAt: at + 300,
        sentAt: at + 300,
        endAt: at + 300 + lat(),
        status: 200,
        body: { id, status: 'IN_PROGRESS' },
      },
      {
        ...base,
        seq: ++seq,
        op: 'status',
        jobId: id,
        intendedAt: at + 1200,
        sentAt: at + 1200,
        endAt: at + 1200 + lat(),
        status: 200,
        body: {
          id,
          status: rnd() < 0.03 ? 'FAILED' : 'COMPLETED',
          delayTime: delay,
          executionTime: execution,
        },
      },
    ];
    for (const r of records) add(r);
    // Every 10 simulated seconds: collect garbage first, so the figure is what the metrics retain.
    if (i % (RATE * 10) === 0) peakHeap = Math.max(peakHeap, retainedHeap());
  }
  const feedMs = performance.now() - t0;
  const endHeap = retainedHeap();
  peakHeap = Math.max(peakHeap, endHeap);
  const t1 = performance.now();
  const data = m.toJSON();
  const summary = buildSummary({
    run: {
      v: 1,
      type: 'run',
      runId: 'bench',
      scenario: 'bench',
      target: 'x',
      startedAtMs,
      ownsEndpoint: true,
    },
    metrics: data,
  });
  const summaryMs = performance.now() - t1;
  return {
    seconds,
    records: total,
    feedMs: Math.round(feedMs),
    summaryMs: Math.round(summaryMs),
    peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
    baseHeapMb: mb(baseHeap),
    peakHeapMb: mb(peakHeap),
    finalHeapMb: mb(endHeap),
    seriesJsonKb: Math.round(JSON.stringify(summary.series).length / 1024),
  };
}

const [mode, arg] = process.argv.slice(2);
if (mode === '--side') {
  process.stdout.write(JSON.stringify(side(Number(arg))));
} else {
  const durations = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const sides = durations.length ? durations : [60, 600];
  const self = fileURLToPath(import.meta.url);
  const results = sides.map(
    (s) =>
      JSON.parse(
        execFileSync(process.execPath, [...process.execArgv, '--expose-gc', self, '--side', String(s)], {
          encoding: 'utf8',
        }),
      ) as Result,
  );
  const rows: [string, (r: Result) => string][] = [
    ['simulated run', (r) => `${r.seconds / 60} min`],
    ['records', (r) => r.records.toLocaleString('en')],
    [
      'feed time',
      (r) => `${r.feedMs} ms (${Math.round(r.records / (r.feedMs / 1000)).toLocaleString('en')} rec/s)`,
    ],
    ['summary build', (r) => `${r.summaryMs} ms`],
    ['peak RSS', (r) => `${r.peakRssMb} MB`],
    ['heap+buffers before', (r) => `${r.baseHeapMb} MB`],
    ['peak heap+buffers', (r) => `${r.peakHeapMb} MB`],
    ['heap+buffers at end', (r) => `${r.finalHeapMb} MB`],
    [
      'growth per sim. second',
      (r) => `${Math.round(((r.finalHeapMb - r.baseHeapMb) * 1024 * 1024) / r.seconds)} B`,
    ],
    ['series in summary.json', (r) => `${r.seriesJsonKb} KB`],
  ];
  for (const [label, f] of rows)
    console.log(`${label.padEnd(24)}${results.map((r) => f(r).padStart(32)).join('')}`);
}
