import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import type { DroppedRecord, ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import { fitDuration, scaleRates } from '../../src/scenario/phase-scaling.js';
import { parseScenario } from '../../src/scenario/scenario-parser.js';
import { arrivalSchedule } from '../../src/schedule/index.js';
import { captureIo } from '../helpers/cli-io.js';
import { runCliOnClock } from '../helpers/cli-on-clock.js';
import { flowServer, type FlowServer } from './flow-server.js';
import { expectReports, readRecords, readSummary, tempDir } from './helpers.js';

/*
 * Issue 4: `--workers N` yields one combined report; `--duration` fits the phases into that time
 * and `--rate-scale` multiplies every rate; a broken scenario file is exit 2 with every error and
 * its line, and nothing is sent.
 */

// Ten seconds, 320 arrivals as written: a ramp 0→40/s over 4 s, then 40/s for 6 s.
const TEN_SECONDS = `name: ten-seconds
phases:
  - { duration: 4s, ramp: { from: 0, to: 40 } }
  - { duration: 6s, rate: 40 }
flows:
  - name: health
    steps:
      - health: {}
`;

let server: FlowServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const firstSteps = (records: JobstormRecord[]): ExchangeRecord[] =>
  records.filter((r): r is ExchangeRecord => r.type === 'exchange' && r.step?.startsWith('1:') === true);
const drops = (records: JobstormRecord[]): DroppedRecord[] =>
  records.filter((r): r is DroppedRecord => r.type === 'dropped');

/**
 * The command in-process, on a manual clock (runCliOnClock) unless `real`: worker threads have
 * event loops of their own, which no clock of this thread can drive.
 */
async function runRecorded(
  args: string[],
  o: { real?: boolean } = {},
): Promise<{ code: number; out: string; records: JobstormRecord[]; stderr: string }> {
  const out = join(await tempDir('opts'), 'out');
  const io = captureIo();
  const argv = [...args, '--out', out, '--record', '--quiet'];
  const code = await (o.real ? runCli(argv, io) : runCliOnClock(argv, io));
  return {
    code,
    out,
    records: existsSync(join(out, 'records.ndjson')) ? await readRecords(out) : [],
    stderr: io.stderr.join('\n'),
  };
}

describe('jobstorm run options', () => {
  it('--workers 2 runs two shard threads and yields one combined report', async () => {
    const dir = await tempDir('workers');
    const file = join(dir, 'ten.yaml');
    await writeFile(file, TEN_SECONDS);
    // Real time: two worker threads, each with its own event loop.
    const { code, out, records, stderr } = await runRecorded(
      ['run', file, '--workers', '2', '--duration', '2s'],
      {
        real: true,
      },
    );
    expect(code, stderr).toBe(ExitCode.Ok);
    expectReports(out, true);
    expect(records.filter((r) => r.type === 'run')).toHaveLength(1);
    const first = firstSteps(records);
    expect(new Set(first.map((r) => r.shard))).toEqual(new Set(['1/2', '2/2']));
    // Together the shards are the whole schedule, instant for instant.
    const planned = [
      ...arrivalSchedule(fitDuration(parseScenario(TEN_SECONDS, 'ten.yaml'), 2000).phases),
    ].map((a) => a.atMs);
    expect(
      [...first.map((r) => r.intendedAt), ...drops(records).map((d) => d.intendedAt)].sort((a, b) => a - b),
    ).toEqual(planned);
    // Time 0 is set once both threads are up: starting a thread takes hundreds of ms, and the
    // arrivals meant for that time must not all leave late at once.
    // (Before, time 0 was taken before the threads started: every arrival of the first half
    // second or more left 100s of ms late. A busy machine may still delay one or two.)
    const late = first.map((r) => r.sentAt - r.intendedAt).sort((x, y) => x - y);
    // measured 2026-11-26: 0 of 64 over 150 ms, median 1.2-1.4 ms, max 15-59 ms, 8 agents busy on 2 cores
    expect(late.filter((x) => x > 150).length, late.map((x) => x.toFixed(0)).join(' ')).toBeLessThanOrEqual(
      2,
    );
    expect(late[Math.floor(late.length / 2)]).toBeLessThan(20);
    const summary = await readSummary(out);
    expect(summary.operations.health?.requests).toBe(
      records.filter((r) => r.type === 'exchange' && r.op === 'health').length,
    );
    expect(summary.violations).toEqual([]);
  }, 60_000);

  it('--duration fits the phases into that time; --rate-scale multiplies every rate', async () => {
    const dir = await tempDir('duration');
    const file = join(dir, 'ten.yaml');
    await writeFile(file, TEN_SECONDS);
    const written = parseScenario(TEN_SECONDS, 'ten.yaml');
    const fitted = await runRecorded(['run', file, '--duration', '2s']);
    expect(fitted.code, fitted.stderr).toBe(ExitCode.Ok);
    const a = firstSteps(fitted.records);
    // 2 s of the same shape: a fifth of the 320 arrivals, all intended within the 2 s.
    expect(a.length + drops(fitted.records).length).toBe(
      arrivalSchedule(fitDuration(written, 2000).phases).total,
    );
    expect(a.length).toBe(64);
    expect(Math.max(...a.map((r) => r.intendedAt))).toBeLessThan(2000);
    expect(Math.max(...a.map((r) => r.intendedAt))).toBeGreaterThan(1900);
    // The report's duration is the run's (2 s of arrivals, plus the drain of the last requests).
    const summary = await readSummary(fitted.out);
    expect(summary.run.durationMs).toBeGreaterThanOrEqual(2000);
    expect(summary.run.durationMs).toBeLessThan(4000);

    const scaled = await runRecorded(['run', file, '--duration', '2s', '--rate-scale', '0.5']);
    expect(scaled.code, scaled.stderr).toBe(ExitCode.Ok);
    const b = firstSteps(scaled.records);
    expect(b.length).toBe(arrivalSchedule(scaleRates(fitDuration(written, 2000), 0.5).phases).total);
    expect(b.length).toBe(32);
    // Half the rate is twice the spacing in the constant phase.
    const steady = (xs: ExchangeRecord[]): number[] =>
      xs
        .map((r) => r.intendedAt)
        .filter((t) => t >= 900)
        .sort((x, y) => x - y);
    const gap = (xs: number[]): number => ((xs[xs.length - 1] ?? 0) - (xs[0] ?? 0)) / (xs.length - 1);
    expect(gap(steady(b))).toBeCloseTo(2 * gap(steady(a)), 6);
  }, 60_000);

  it('--duration ends the run near its duration: a 120 s poll timeout is capped at duration + graceful stop, and what is still running is cut and counted', async () => {
    const dir = await tempDir('cap');
    const file = join(dir, 'long-polls.yaml');
    // Jobs that never finish within the run, polled with a timeout far longer than it.
    await writeFile(
      file,
      `name: long-polls
phases: [{ duration: 60s, rate: 2 }]
flows:
  - name: wait-long
    steps:
      - run: { input: { sleep_ms: 600000 } }
      - poll: { until: final, interval: 200ms, timeout: 120s }
`,
    );
    const { code, out } = await runRecorded(['run', file, '--duration', '2s', '--graceful-stop', '2s']);
    const summary = await readSummary(out);
    // Ten-minute jobs in a 2 s run: none was seen final, so how jobs end went unjudged.
    expect(code, summary.verdict.reasons.join('; ')).toBe(4);
    expect(summary.verdict.reasons[0]).toMatch(/^no job finished/);
    // 2 s of arrivals + 2 s of graceful stop (and the drain), on the run's clock: far from 120 s.
    expect(summary.run.durationMs).toBeGreaterThanOrEqual(4_000);
    expect(summary.run.durationMs).toBeLessThan(6_000);
    expect(summary.jobs.submitted).toBeGreaterThan(0);
    expect((summary.run.iterationsCut ?? 0) + summary.jobs.unfinished).toBeGreaterThan(0);
  }, 60_000);

  it('a broken scenario file is exit 2 with every error and its line, and nothing is sent', async () => {
    server = await flowServer();
    const dir = await tempDir('broken');
    const file = join(dir, 'broken.yaml');
    await writeFile(
      file,
      [
        'name: broken',
        'phases:',
        '  - { duration: 5x, rate: 10 }',
        '  - { duration: 1s, rate: -3 }',
        'flows:',
        '  - name: f',
        '    steps:',
        '      - run: { input: {}, bogus: 1 }',
        '      - poll: { until: DONE }',
        '',
      ].join('\n'),
    );
    const out = join(dir, 'out');
    const io = captureIo();
    const code = await runCli(['run', file, '--target', server.target, '--api-key', 'k', '--out', out], io);
    expect(code).toBe(ExitCode.Usage);
    const err = io.stderr.join('\n');
    expect(err).toMatch(/configuration error \((\d+) problems\)/);
    for (const line of [3, 4, 8, 9]) expect(err).toContain(`broken.yaml:${String(line)}:`);
    expect(err).not.toMatch(/^\s+at /m);
    expect(server.received).toEqual([]);
    expect(existsSync(out)).toBe(false);
  }, 30_000);
});
