import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCapacity, writeCapacityReports, type CapacityReport } from '../../src/capacity/index.js';
import { formatStepRate } from '../../src/capacity/capacity-view.js';
import { parseThresholds } from '../../src/report/threshold.js';
import { parseScenario } from '../../src/scenario/index.js';
import { manualTarget, quietLoop } from '../helpers/manual-target.js';

/**
 * The capacity search against emulators whose true capacity is known: fixed workers (workersMin =
 * workersMax, no cold start), every job sleeping a fixed time, so capacity = workers / job time.
 * The flow is one /runsync per job, the lightest load generator for the same jobs (no polls).
 * requestsPerWorker is raised so the dynamic rate limit never caps the polls: the SLO and the
 * queue are what must break, not 429s. The search and the emulator share a manual clock (issue
 * 46): no job timer fires late, so a busy machine cannot make the jobs longer than their sleep.
 */
function scenario(sleepMs: number) {
  return parseScenario(
    `
name: capacity-accuracy
target: { connections: 256 }
phases: [{ duration: 1s, rate: 1 }]
flows:
  - name: runsync
    steps:
      - runsync: { input: { sleep_ms: ${String(sleepMs)} }, wait: 60s }
`,
    'capacity-accuracy.yaml',
  );
}

async function measure(workers: number, sleepMs: number, start: number): Promise<CapacityReport> {
  const t = await manualTarget({
    workersMin: workers,
    workersMax: workers,
    requestsPerWorker: 100_000,
  });
  try {
    return await t.driver.run(
      findCapacity({
        scenario: scenario(sleepMs),
        target: t.target,
        clock: t.clock,
        generatorProbe: quietLoop,
        slo: parseThresholds(['p95(delayTime) < 1s', 'rate(failed) < 0.5%']),
        steps: { start, factor: 1.5, max: 1000, stepDurationMs: 4000, warmupMs: 1500 },
        mode: 'binary',
        resolution: 0.06,
        // Short steps: call a queue unbounded sooner than the 5 s default so failing steps end early.
        unboundedQueueSeconds: 1,
      }),
    );
  } finally {
    await t.emulator.close();
  }
}

/**
 * The endpoint's true capacity as it ran: workers over the mean time its jobs took at the steps
 * that decided the search (the last passing rate and the first failing one), from the
 * executionTime the emulator reported: workers / job time, since no timer fires late.
 */
function trueCapacity(report: CapacityReport, workers: number, sleepMs: number): number {
  const { lastPassing, firstFailing } = report.confidence;
  const deciding = report.steps.filter(
    (s) => s.offeredRate === lastPassing || s.offeredRate === firstFailing,
  );
  const jobs = deciding.reduce((n, s) => n + s.executionTime.count, 0);
  const meanMs = deciding.reduce((t, s) => t + s.executionTime.mean * s.executionTime.count, 0) / jobs;
  expect(jobs).toBeGreaterThan(0);
  // On the manual clock a job takes its sleep exactly: anything else is an emulator bug.
  expect(meanMs).toBeCloseTo(sleepMs, 0);
  return (workers * 1000) / meanMs;
}

function expectWithin(report: CapacityReport, workers: number, sleepMs: number): void {
  const summary = report.steps
    .map((s) => `${String(s.offeredRate)}/s ${s.passed ? 'pass' : `fail (${s.reasons.join('; ')})`}`)
    .join('\n');
  expect(report.verdict, summary).toBe('found');
  expect(report.capacity, summary).not.toBeNull();
  const capacity = report.capacity ?? 0;
  const truth = trueCapacity(report, workers, sleepMs);
  const nominal = (workers * 1000) / sleepMs;
  expect(
    Math.abs(capacity - truth) / truth,
    `capacity ${String(capacity)} vs truth ${String(truth)} (nominal ${String(nominal)})\n${summary}`,
  ).toBeLessThanOrEqual(0.1);
  expect(report.confidence.lastPassing).toBe(capacity);
  expect(report.confidence.firstFailing).toBeGreaterThan(capacity);
}

describe('capacity search against the emulator', () => {
  it('10 workers × 100 ms jobs: 100 jobs/s', { timeout: 90_000 }, async () => {
    const report = await measure(10, 100, 60);
    expectWithin(report, 10, 100);
    // The steps that passed kept up with what was offered, and /health saw all ten workers busy.
    for (const s of report.steps.filter((x) => x.passed)) {
      expect(s.achievedRate ?? 0).toBeGreaterThan(s.offeredRate * 0.9);
      expect(s.little?.ratio ?? 0).toBeGreaterThan(0.7);
      expect(s.little?.ratio ?? 9).toBeLessThan(1.3);
    }
    expect(Math.max(...report.health.map((h) => h.running))).toBe(10);
    const failing = report.steps.filter((x) => !x.passed);
    expect(failing.length).toBeGreaterThan(0);
    for (const s of failing) expect(s.achievedRate ?? 0).toBeLessThan(110);

    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-capacity-'));
    await writeCapacityReports(report, dir);
    const json = JSON.parse(await readFile(join(dir, 'capacity.json'), 'utf8')) as CapacityReport;
    expect(json.version).toBe(1);
    expect(json.kind).toBe('jobstorm-capacity');
    expect(json.capacity).toBe(report.capacity);
    const md = await readFile(join(dir, 'capacity.md'), 'utf8');
    expect(md).toContain(`Highest sustainable rate: ${formatStepRate(report.capacity)} arrivals/s offered (`);
    const html = await readFile(join(dir, 'capacity.html'), 'utf8');
    expect(html).toContain('Content-Security-Policy');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet/);
  });

  it('4 workers × 50 ms jobs: 80 jobs/s', { timeout: 90_000 }, async () => {
    expectWithin(await measure(4, 50, 60), 4, 50);
  });
});
