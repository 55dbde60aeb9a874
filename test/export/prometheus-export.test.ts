import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import { JOB_BUCKETS_S, REQUEST_BUCKETS_S } from '../../src/export/bucket-histogram.js';
import { FINAL_STATES } from '../../src/metrics/metrics-data.js';
import { captureIo } from '../helpers/cli-io.js';
import { expectReports, readRecords, readSummary, root } from '../e2e/helpers.js';
import { dashboardQueries } from './dashboard-queries.js';
import { withinBucket } from './bucket-check.js';
import { exportScenario } from './export-scenario.js';
import { startPrometheus, type PrometheusServer } from './prometheus-server.js';

/*
 * Issue 16: a real Prometheus (Debian's package, remote-write receiver on, loopback) receives a
 * run's live metrics; its query API gives back the summary's counts, and histogram_quantile lands in
 * the bucket of the report's HDR percentile. Killing it mid-run changes nothing about the run.
 * The runs that export are real time: the receiver is a real process, and a run on a manual clock
 * would move on while its writes are on their way to it. They last 2 s, not more than a few
 * flushes need. One Prometheus serves the two tests that leave it alive, each run under a run id of
 * its own (a scenario name of its own); the last kills one of its own. The first, which counts every
 * flush, runs alone; the other two (one of them the built bin) at once.
 */

/** The Prometheus the first two tests share (their series kept apart by run id). */
let shared: PrometheusServer | undefined;

beforeAll(async () => {
  shared = await startPrometheus();
});

afterAll(async () => {
  await shared?.kill();
});

/** 90 arrivals, as 3 s at 30/s made, in 2 s: a run as long as a few flushes need. */
const PHASE = '{ duration: 2s, rate: 45 }';

/** The built CLI as a child process (no key from this environment): its exit code and stderr. */
async function runBin(args: string[]): Promise<{ code: number; stderr: string }> {
  const env = { ...process.env, JOBSTORM_API_KEY: '' };
  const bin = join(root, 'dist/cli/main.js');
  try {
    const { stderr } = await promisify(execFile)(process.execPath, [bin, ...args], { cwd: root, env });
    return { code: 0, stderr };
  } catch (e) {
    // A non-zero exit: execFile's error carries the code and what was written.
    const exit = e as { code?: unknown; stderr?: string };
    if (typeof exit.code !== 'number') throw e;
    return { code: exit.code, stderr: exit.stderr ?? '' };
  }
}

/** The bucket (of `bounds`) that holds a histogram_quantile result. */
function bucketAround(bounds: readonly number[], value: number): { lo: number; hi: number } {
  const i = bounds.findIndex((b) => value <= b);
  return i < 0
    ? { lo: bounds.at(-1) ?? 0, hi: Infinity }
    : { lo: i === 0 ? 0 : (bounds[i - 1] ?? 0), hi: bounds[i] ?? Infinity };
}

function byLabel(
  rows: { metric: Record<string, string>; value: number }[],
  label: string,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) out[r.metric[label] ?? ''] = r.value;
  return out;
}

describe('--export prometheus=<remote-write URL>', () => {
  it('Prometheus holds the run’s request counts, job states and latency buckets', async () => {
    const p = shared as PrometheusServer;
    const { dir, file } = await exportScenario(undefined, undefined, { phase: PHASE });
    const out = join(dir, 'report');
    const io = captureIo();
    const code = await runCli(
      [
        'run',
        file,
        '--out',
        out,
        '--quiet',
        '--export',
        `prometheus=${p.writeUrl}`,
        '--export-interval',
        '1s',
      ],
      io,
    );
    expect(code, io.stderr.join('\n')).toBe(ExitCode.Ok);
    const summary = await readSummary(out);
    expect(summary.exports).toEqual([
      { kind: 'prometheus', url: p.writeUrl, sent: expect.any(Number) as number, dropped: 0 },
    ]);
    expect(summary.exports?.[0]?.sent).toBeGreaterThanOrEqual(2);
    const run = `run_id="${summary.run.id}"`;

    const byOp = await p.query(`sum by (operation) (jobstorm_requests_total{${run}})`);
    const exported = byLabel(byOp, 'operation');
    const reported = Object.fromEntries(
      Object.entries(summary.operations).map(([op, o]) => [op, o.requests]),
    );
    expect(exported).toEqual(reported);
    expect(reported.run).toBeGreaterThan(50);

    const byCode = await p.query(`sum by (status_code) (jobstorm_requests_total{${run}, operation="run"})`);
    expect(byLabel(byCode, 'status_code')).toEqual(summary.operations.run?.byStatus);

    const states = await p.query(`sum by (state) (jobstorm_jobs_final_total{${run}})`);
    const exportedStates = byLabel(states, 'state');
    for (const s of FINAL_STATES) expect(exportedStates[s], s).toBe(summary.jobs.byState[s]);
    expect(summary.jobs.byState.COMPLETED).toBeGreaterThan(0);
    expect(summary.jobs.byState.CANCELLED).toBeGreaterThan(0);
    const [submitted] = await p.query(`sum(jobstorm_jobs_submitted_total{${run}})`);
    expect(submitted?.value).toBe(summary.jobs.submitted);

    // The report's p99 (HDR, 3 significant digits) lies in the bucket histogram_quantile interpolates in.
    const [p99] = await p.query(
      `histogram_quantile(0.99, sum by (le) (jobstorm_request_duration_seconds_bucket{${run}, operation="run"}))`,
    );
    expect(p99).toBeDefined();
    const reportP99 = (summary.operations.run?.latency.p99 ?? NaN) / 1000;
    expect(
      withinBucket(reportP99, bucketAround(REQUEST_BUCKETS_S, p99?.value ?? NaN)),
      `report p99 ${String(reportP99)} s, histogram_quantile ${String(p99?.value)} s`,
    ).toBe(true);
    const [e2e] = await p.query(
      `histogram_quantile(0.5, sum by (le) (jobstorm_job_duration_seconds_bucket{${run}, state="COMPLETED"}))`,
    );
    const reportE2e = summary.jobs.e2e.COMPLETED.percentiles.p50 / 1000;
    expect(
      withinBucket(reportE2e, bucketAround(JOB_BUCKETS_S, e2e?.value ?? NaN)),
      `report e2e p50 ${String(reportE2e)} s, histogram_quantile ${String(e2e?.value)} s`,
    ).toBe(true);

    // Labels: the scenario's tags and the shard; /health samples as worker gauges.
    const tagged = await p.query(
      `count(jobstorm_requests_total{${run}, team="jobs", env="ci", scenario="export-proof", shard="1/1"})`,
    );
    expect(tagged[0]?.value).toBe(
      byOp.length > 0 ? (await p.query(`count(jobstorm_requests_total{${run}})`))[0]?.value : -1,
    );
    const workers = await p.query(`jobstorm_target_workers{${run}, worker_state="running"}`);
    expect(workers.length).toBe(1);
    const [violations] = await p.query(`count(jobstorm_violations_total{${run}})`);
    expect(violations).toBeUndefined();
    expect(summary.violations).toEqual([]);

    // The Grafana dashboard's every query runs on this Prometheus; the core panels show this run.
    const queries = await dashboardQueries(root, summary.run.id);
    const answers = await Promise.all(queries.map((q) => p.query(q.expr)));
    const empty = queries
      .filter((_, i) => {
        const rows = answers[i] ?? [];
        return rows.length === 0 || rows.every((row) => Number.isNaN(row.value));
      })
      .map((q) => q.panel);
    for (const panel of [
      'Requests per second by operation',
      'Request latency p50 / p95 / p99 (from the intended start)',
      'Jobs reaching a final state per second',
      'Job states (totals)',
      'Workers (latest /health sample)',
      'Queue (latest /health sample)',
    ])
      expect(empty, panel).not.toContain(panel);
  }, 90_000);

  it.concurrent(
    '--workers 2 (the built bin): each shard under its own label, summing to the run; violations by check id as the summary counts them',
    async () => {
      const p = shared as PrometheusServer;
      const { dir, file } = await exportScenario(undefined, undefined, {
        name: 'export-workers',
        phase: PHASE,
      });
      const out = join(dir, 'report');
      // The built bin, as a user runs it: its worker threads start from compiled JavaScript, where a
      // thread of a run in this process would compile every source again.
      const { code, stderr } = await runBin([
        'run',
        file,
        '--out',
        out,
        '--quiet',
        '--workers',
        '2',
        '--fault',
        'odd-status',
        '--export',
        `prometheus=${p.writeUrl}`,
        '--export-interval',
        '1s',
      ]);
      expect(code, stderr).toBe(ExitCode.Failed);
      const summary = await readSummary(out);
      const run = `run_id="${summary.run.id}"`;
      const byShard = byLabel(
        await p.query(`sum by (shard) (jobstorm_requests_total{${run}, operation="run"})`),
        'shard',
      );
      expect(Object.keys(byShard).sort()).toEqual(['1/2', '2/2']);
      expect(Object.values(byShard).every((n) => n > 0)).toBe(true);
      expect((byShard['1/2'] ?? 0) + (byShard['2/2'] ?? 0)).toBe(summary.operations.run?.requests);
      const [completed] = await p.query(`sum(jobstorm_jobs_final_total{${run}, state="COMPLETED"})`);
      expect(completed?.value).toBe(summary.jobs.byState.COMPLETED);
      const violations = byLabel(
        await p.query(`sum by (check) (jobstorm_violations_total{${run}})`),
        'check',
      );
      expect(summary.violations.length).toBeGreaterThan(0);
      expect(violations).toEqual(Object.fromEntries(summary.violations.map((v) => [v.id, v.count])));
    },
    90_000,
  );

  it.concurrent(
    'a Prometheus killed mid-run leaves the run, its reports and its verdict as without export',
    async () => {
      const { dir, file } = await exportScenario(undefined, undefined, {
        name: 'export-killed',
        phase: PHASE,
      });
      // The same run without export, at the same time: what the run with it is compared with.
      const plain = runCli(['run', file, '--out', join(dir, 'plain'), '--quiet'], captureIo());
      const p = await startPrometheus();
      try {
        await killedMidRun(p, dir, file, plain);
      } finally {
        await p.kill();
      }
    },
    90_000,
  );
});

/** A run exporting to `p`, which is killed once it took a first flush; what the run made of it. */
async function killedMidRun(
  p: PrometheusServer,
  dir: string,
  file: string,
  plain: Promise<number>,
): Promise<void> {
  const out = join(dir, 'killed');
  const io = captureIo();
  const running = runCli(
    [
      'run',
      file,
      '--out',
      out,
      '--quiet',
      '--record',
      '--export',
      `prometheus=${p.writeUrl}`,
      '--export-interval',
      '300ms',
    ],
    io,
  );
  let settled = false;
  void running.finally(() => (settled = true));
  // Kill it once it has taken a first flush, while the run goes on.
  // Real time: waits for a real Prometheus process to take a first flush.
  const deadline = Date.now() + 20_000;
  while ((await p.query('count(jobstorm_requests_total)')).length === 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  expect(settled).toBe(false);
  await p.kill();
  const code = await running;

  expect(code, io.stderr.join('\n')).toBe(await plain);
  expect(code).toBe(ExitCode.Ok);
  expectReports(out, true);
  const summary = await readSummary(out);
  const exp = summary.exports?.[0];
  expect(exp?.sent, JSON.stringify(exp)).toBeGreaterThanOrEqual(1);
  expect(exp?.dropped).toBeGreaterThanOrEqual(1);
  expect(exp?.lastError).toBeTruthy();
  expect(io.stderr.join('\n')).toMatch(
    /warning: export prometheus http:\/\/127\.0\.0\.1:\d+\/api\/v1\/write failed/,
  );
  // Not one record lost: every exchange in records.ndjson is in the summary.
  const exchanges = (await readRecords(out)).filter((r) => r.type === 'exchange').length;
  expect(Object.values(summary.operations).reduce((a, o) => a + o.requests, 0)).toBe(exchanges);
  expect(summary.jobs.unfinished).toBe(0);
  expect(await readFile(join(out, 'summary.md'), 'utf8')).toMatch(
    /export prometheus http:\S+: sent [1-9]\d*, dropped [1-9]\d* \(last error: /,
  );
}
