import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/exit-code.js';
import { FINAL_STATES } from '../../src/metrics/metrics-data.js';
import { cliClock, runCliOnClock } from '../helpers/cli-on-clock.js';
import { captureIo } from '../helpers/cli-io.js';
import { readSummary } from '../e2e/helpers.js';
import { quantileBucket, withinBucket } from './bucket-check.js';
import { exportScenario } from './export-scenario.js';
import {
  attribute,
  receiverGoneAfterFirst,
  startOtlpReceiver,
  type OtlpMetric,
  type OtlpReceiver,
} from './otlp-receiver.js';

/*
 * Issue 16: OTLP/HTTP metrics, sent by the OpenTelemetry JS exporter, decoded on loopback with the
 * opentelemetry-proto definitions, give the summary's numbers. The export comes from the scenario's
 * own `export:` list here; the auth header comes from the environment and reaches no report.
 * Each run, its embedded emulator and its flush interval are in-process on a manual clock (issue
 * 46); the receiver is a real loopback socket in this thread, which the clock's driver waits for.
 */

let receiver: OtlpReceiver | undefined;

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function sumBy(metric: OtlpMetric | undefined, key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of metric?.sum?.dataPoints ?? []) {
    const k = String(attribute(p, key));
    out[k] = (out[k] ?? 0) + (p.asInt ?? p.asDouble ?? 0);
  }
  return out;
}

describe('export: [{ kind: otlp }] (OTLP/HTTP)', () => {
  it('the receiver decodes the summary’s counts, job states and a p99 in the report’s bucket', async () => {
    receiver = await startOtlpReceiver();
    const r = receiver;
    const { dir, file } = await exportScenario(`export:\n  - { kind: otlp, url: "${r.url}" }\n`);
    const out = join(dir, 'report');
    const secret = 'Bearer otlp-secret-4711';
    const io = captureIo({ TEST_OTLP_AUTH: secret });
    const code = await runCliOnClock(
      [
        'run',
        file,
        '--out',
        out,
        '--quiet',
        '--record',
        '--export-interval',
        '1s',
        '--export-header',
        'otlp:Authorization=TEST_OTLP_AUTH',
      ],
      io,
    );
    expect(code, io.stderr.join('\n')).toBe(ExitCode.Ok);
    const summary = await readSummary(out);
    // A flush's bound is its interval of real time (the sender's own timer): on a loaded host one
    // may go unanswered that long and be dropped, as the summary then says, though it may still
    // arrive. Every flush counted as sent was received.
    const [exported] = summary.exports ?? [];
    expect(exported).toMatchObject({ kind: 'otlp', url: r.url });
    const { sent = 0, dropped = 0 } = exported ?? {};
    if (dropped > 0) expect(exported?.lastError).toMatch(/^no answer within \d+ ms$/);
    expect(sent).toBeGreaterThanOrEqual(2);
    expect(r.received.length).toBeGreaterThanOrEqual(sent);
    expect(r.received.length).toBeLessThanOrEqual(sent + dropped);
    for (const got of r.received) {
      expect(got.contentType).toContain('application/json');
      expect(got.headers.authorization).toBe(secret);
    }
    for (const f of await readdir(out))
      expect(await readFile(join(out, f), 'utf8'), f).not.toContain('otlp-secret');

    const m = r.latest();
    const requests = m.get('jobstorm.requests');
    expect(requests?.sum?.isMonotonic).toBe(true);
    expect(requests?.sum?.aggregationTemporality).toBe('AGGREGATION_TEMPORALITY_CUMULATIVE');
    expect(sumBy(requests, 'jobstorm.operation')).toEqual(
      Object.fromEntries(Object.entries(summary.operations).map(([op, o]) => [op, o.requests])),
    );
    const point = requests?.sum?.dataPoints[0];
    expect(point && attribute(point, 'team')).toBe('jobs');
    expect(point && attribute(point, 'jobstorm.run.id')).toBe(summary.run.id);
    expect(point && attribute(point, 'jobstorm.shard')).toBe('1/1');
    expect(typeof (point && attribute(point, 'http.response.status_code'))).toBe('number');

    const states = sumBy(m.get('jobstorm.jobs.final'), 'jobstorm.job.state');
    for (const s of FINAL_STATES) expect(states[s], s).toBe(summary.jobs.byState[s]);
    expect(summary.jobs.byState.CANCELLED).toBeGreaterThan(0);

    const duration = m.get('http.client.request.duration');
    expect(duration?.unit).toBe('s');
    const runPoints = (duration?.histogram?.dataPoints ?? []).filter(
      (p) => attribute(p, 'jobstorm.operation') === 'run',
    );
    const bounds = runPoints[0]?.explicitBounds ?? [];
    const counts = bounds.map(() => 0).concat(0);
    for (const p of runPoints) p.bucketCounts.forEach((c, i) => (counts[i] = (counts[i] ?? 0) + c));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(summary.operations.run?.requests);
    const reportP99 = (summary.operations.run?.latency.p99 ?? NaN) / 1000;
    const bucket = quantileBucket(bounds, counts, 0.99);
    expect(
      withinBucket(reportP99, bucket),
      `report p99 ${String(reportP99)} s, bucket ${JSON.stringify(bucket)}`,
    ).toBe(true);

    const workers = m.get('jobstorm.target.workers')?.gauge?.dataPoints ?? [];
    expect(workers.map((p) => attribute(p, 'jobstorm.worker.state')).sort()).toEqual(['idle', 'running']);
  }, 90_000);

  it('a receiver gone mid-run costs dropped exports and a warning, not the run', async () => {
    const clock = cliClock();
    const gone = await receiverGoneAfterFirst(clock);
    const r = (receiver = gone.receiver);
    const { dir, file } = await exportScenario();
    const out = join(dir, 'report');
    const io = captureIo();
    const code = await runCliOnClock(
      ['run', file, '--out', out, '--quiet', '--export', `otlp=${r.url}`, '--export-interval', '300ms'],
      io,
      { clock },
    );
    await gone.closing();
    expect(gone.closing()).toBeDefined();
    expect(r.received).toHaveLength(1);
    expect(code, io.stderr.join('\n')).toBe(ExitCode.Ok);
    const summary = await readSummary(out);
    expect(summary.exports?.[0]?.sent).toBeGreaterThanOrEqual(1);
    expect(summary.exports?.[0]?.dropped).toBeGreaterThanOrEqual(1);
    expect(io.stderr.join('\n')).toMatch(
      /warning: export otlp http:\/\/127\.0\.0\.1:\d+\/v1\/metrics failed/,
    );
    expect(summary.jobs.unfinished).toBe(0);
  }, 90_000);
});
