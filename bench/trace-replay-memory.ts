/**
 * Issue 49, "Proven, not claimed": a generated 5-million-row trace replays for 60 s at 10× time
 * scale with flat memory. The Mooncake trace (Poisson rows at `rowsPerSecond` of trace time, so 10×
 * replays them at ten times that) is written to a temporary file row by row; the whole file is
 * counted before time 0 (its window has no `to`), then replayed against the bare flow server, one
 * `run` a row, with the sinks of a default run, and stopped as Ctrl-C stops a run after `seconds`.
 * Every 5 s: a full GC (with --expose-gc), then heap and RSS. The heap must not grow with the rows
 * read: its growth from the first to the last sample is printed beside the rows replayed. With
 * `sink=none` the records go nowhere, so what is left is the replay's own memory; `sink=checks`
 * adds a default run's metrics and checks, which keep each unfinished job (this server's jobs never
 * finish without a poll) and so grow with the jobs, not with the trace.
 *
 *   node --expose-gc --import tsx bench/trace-replay-memory.ts [rows=5000000] [seconds=60] [rowsPerSecond=80] [sink=none|checks]
 */
import { stat, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checker } from '../src/check/checker.js';
import { systemClock } from '../src/core/clock.js';
import type { JobstormRecord } from '../src/core/record.js';
import { JobFold } from '../src/fold/job-fold.js';
import { RunMetrics } from '../src/metrics/run-metrics.js';
import { runScenario } from '../src/runner/runner.js';
import { pinSelf, startFlowServer } from './runner-bench-setup.js';
import { replayScenario, writeMooncakeTrace } from './trace-bench-setup.js';

const rows = Number(process.argv[2] ?? 5_000_000);
const seconds = Number(process.argv[3] ?? 60);
const rowsPerSecond = Number(process.argv[4] ?? 80);
const sink = process.argv[5] ?? 'none';
const TIME_SCALE = 10;
const MB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;

interface Sample {
  t: number;
  sent: number;
  heap: number;
  rss: number;
}

pinSelf();
const server = await startFlowServer();
const dir = await mkdtemp(join(tmpdir(), 'jobstorm-trace-memory-'));
try {
  const file = join(dir, 'trace.jsonl');
  const w0 = performance.now();
  const lastMs = await writeMooncakeTrace(file, rows, rowsPerSecond);
  const size = (await stat(file)).size;
  console.log(
    `trace: ${String(rows)} rows, ${(size / MB).toFixed(0)} MB, ${(lastMs / 3600_000).toFixed(1)} h of trace time (written in ${((performance.now() - w0) / 1000).toFixed(1)} s); replayed at ${String(TIME_SCALE)}×: ${String(rowsPerSecond * TIME_SCALE)} arrivals/s`,
  );
  gc?.();
  const before = process.memoryUsage();
  const metrics = new RunMetrics();
  const fold = new JobFold();
  let checker: Checker | undefined;
  let sent = 0;
  const samples: Sample[] = [];
  const stop = new AbortController();
  let t0 = 0;
  let timer: NodeJS.Timeout | undefined;
  const sample = (): void => {
    gc?.();
    const m = process.memoryUsage();
    const s = { t: (performance.now() - t0) / 1000, sent, heap: m.heapUsed, rss: m.rss };
    samples.push(s);
    console.log(
      `${s.t.toFixed(0).padStart(4)} s  rows sent ${String(sent).padStart(8)}  heap ${(s.heap / MB).toFixed(1).padStart(6)} MB  rss ${(s.rss / MB).toFixed(1).padStart(7)} MB`,
    );
  };
  const c0 = performance.now();
  const outcome = await runScenario({
    clock: systemClock,
    scenario: replayScenario(file, `, timeScale: ${String(TIME_SCALE)}`),
    target: { baseUrl: `${server.origin}/v2/ep`, apiKey: 'bench-key', ownsEndpoint: false },
    runId: 'bench',
    interrupt: stop.signal,
    sampleHealth: false,
    startAt: () => {
      // Time 0: the whole trace has been counted by now.
      t0 = performance.now();
      console.log(`counted before time 0 in ${((t0 - c0) / 1000).toFixed(1)} s`);
      gc?.();
      const m = process.memoryUsage();
      console.log(
        `heap before the run ${(before.heapUsed / MB).toFixed(1)} MB, at time 0 ${(m.heapUsed / MB).toFixed(1)} MB`,
      );
      timer = setInterval(sample, 5000);
      setTimeout(() => stop.abort(), seconds * 1000);
      return Promise.resolve(systemClock.epochNow());
    },
    onRecord: (r: JobstormRecord) => {
      if (r.type === 'exchange' && r.step === '1:run') sent++;
      if (sink === 'none') return;
      if (r.type === 'run') checker = new Checker(r);
      const jobs = fold.add(r);
      metrics.add(r, jobs);
      checker?.add(r, jobs);
    },
  });
  clearInterval(timer);
  checker?.finish();
  const first = samples[0];
  const last = samples.at(-1);
  if (first !== undefined && last !== undefined) {
    const growth = (last.heap - first.heap) / MB;
    console.log(
      `from ${first.t.toFixed(0)} s to ${last.t.toFixed(0)} s: ${String(last.sent - first.sent)} more rows sent, heap ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB, rss ${((last.rss - first.rss) / MB).toFixed(1)} MB; lateness p99 ${outcome.latenessP99Ms.toFixed(1)} ms`,
    );
    console.log(`${gc ? '' : '(no --expose-gc: heap figures include garbage) '}rows sent in all: ${String(sent)}`);
  }
} finally {
  server.stop();
  await rm(dir, { recursive: true, force: true });
}
