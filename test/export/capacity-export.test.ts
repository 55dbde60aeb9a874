import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CapacityReport } from '../../src/capacity/index.js';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import type { ManualClock } from '../../src/core/manual-clock.js';
import { cliClock, runCliOnClock } from '../helpers/cli-on-clock.js';
import { captureIo } from '../helpers/cli-io.js';
import { attribute, receiverGoneAfterFirst, startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

/*
 * `capacity --export`: a search of several minutes is watched on the same dashboards as a run. Every
 * step's records are exported as they come, under the search's run id; capacity.json and its
 * reports say how the export fared, and a backend that goes away costs warnings, not the search.
 * The search, its embedded emulator and its flush interval run in-process on a manual clock (issue
 * 46); the receiver is a real loopback socket in this thread, which the clock's driver waits for.
 * Each flush holds that clock until its send is done, the sender's first loading included
 * (LiveExports declares it under way): no flush finds the one before it still in flight.
 */

let receiver: OtlpReceiver | undefined;

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function scenario(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'jobstorm-capacity-export-'));
  const file = join(dir, 'capacity-export.yaml');
  await writeFile(
    file,
    `name: capacity-export
emulator: { workersMin: 4, workersMax: 4, coldStart: 0ms, requestsPerWorker: 100000 }
phases: [{ duration: 5s, rate: 8 }]
flows:
  - name: submit-and-poll
    steps:
      - run: { input: { sleep_ms: 20 } }
      - poll: { until: final, interval: 100ms, timeout: 10s }
`,
  );
  return file;
}

/**
 * A two-step search (8 then 16 jobs/s, 1.5 s each) exporting to `to` every `interval` of the
 * search's clock (`clock`, a fresh one by default). A send's timeout is that interval in real time
 * (it bounds a real socket): 300 ms cut a cold first send on a loaded CI machine ("no answer
 * within 300 ms"), so the test that counts every flush sent uses a second.
 */
async function search(
  to: OtlpReceiver,
  clock: ManualClock = cliClock(),
  interval = '300ms',
): Promise<{ out: string; io: ReturnType<typeof captureIo>; searching: Promise<number> }> {
  const file = await scenario();
  const out = join(file, '..', 'report');
  const io = captureIo();
  const args = [
    '--slo',
    'p95(e2e) < 5s',
    '--start',
    '8',
    '--factor',
    '2',
    '--max',
    '16',
    '--step-duration',
    '1500ms',
    '--warmup',
    '0s',
    '--mode',
    'step',
    '--quiet',
  ];
  return {
    out,
    io,
    searching: runCliOnClock(
      ['capacity', file, ...args, '--out', out, '--export', `otlp=${to.url}`, '--export-interval', interval],
      io,
      { clock },
    ),
  };
}

const readReport = async (out: string): Promise<CapacityReport> =>
  JSON.parse(await readFile(join(out, 'capacity.json'), 'utf8')) as CapacityReport;

describe('jobstorm capacity --export', () => {
  it('streams every step to the backend: its totals are the steps’ own', { timeout: 90_000 }, async () => {
    receiver = await startOtlpReceiver();
    const r = receiver;
    const { out, io, searching } = await search(r, cliClock(), '1s');
    // On the manual clock no starved runner fails a step: both steps pass, and the search ends at --max.
    expect(await searching, io.stderr.join('\n')).toBe(ExitCode.Ok);
    const report = await readReport(out);
    expect(report.steps.map((s) => [s.offeredRate, s.passed])).toEqual([
      [8, true],
      [16, true],
    ]);
    expect(report.exports).toEqual([{ kind: 'otlp', url: r.url, sent: r.received.length, dropped: 0 }]);
    // Flushed during the search, not only once at its end.
    expect(r.received.length).toBeGreaterThanOrEqual(2);

    // Cumulative totals: the last send carries every request of every step (no warm-up here).
    const requests = r.latest().get('jobstorm.requests')?.sum?.dataPoints ?? [];
    const total = requests.reduce((n, p) => n + (p.asInt ?? p.asDouble ?? 0), 0);
    expect(total).toBe(report.steps.reduce((n, s) => n + s.requests, 0));
    const submitted = requests
      .filter((p) => attribute(p, 'jobstorm.operation') === 'run')
      .reduce((n, p) => n + (p.asInt ?? p.asDouble ?? 0), 0);
    expect(submitted).toBe(report.steps.reduce((n, s) => n + s.submitted, 0));
    expect(submitted).toBeGreaterThan(0);
    expect(requests[0] && attribute(requests[0], 'jobstorm.run.id')).toBe(report.runId);

    for (const f of ['capacity.md', 'capacity.html'])
      expect(await readFile(join(out, f), 'utf8'), f).toMatch(
        /export otlp http:\/\/127\.0\.0\.1:\d+\/v1\/metrics: sent \d+, dropped 0/,
      );
  });

  it(
    'a backend gone mid-search costs dropped exports and a warning, not the search',
    { timeout: 90_000 },
    async () => {
      const clock = cliClock();
      const gone = await receiverGoneAfterFirst(clock);
      const r = (receiver = gone.receiver);
      const { out, io, searching } = await search(r, clock);
      const code = await searching;
      await gone.closing();
      expect(gone.closing()).toBeDefined();
      expect(r.received).toHaveLength(1);
      expect([ExitCode.Ok, ExitCode.Failed], io.stderr.join('\n')).toContain(code);
      const report = await readReport(out);
      expect(report.steps.length).toBeGreaterThanOrEqual(1);
      expect(report.verdict).not.toBe('unknown');
      expect(report.exports?.[0]?.sent).toBeGreaterThanOrEqual(1);
      expect(report.exports?.[0]?.dropped).toBeGreaterThanOrEqual(1);
      expect(io.stderr.join('\n')).toMatch(
        /warning: export otlp http:\/\/127\.0\.0\.1:\d+\/v1\/metrics failed/,
      );
    },
  );

  it('a bad --export is a usage error named with the others, before anything is sent', async () => {
    const file = await scenario();
    const io = captureIo();
    const code = await runCli(
      [
        'capacity',
        file,
        '--export',
        'statsd=udp://x',
        '--export-interval',
        'often',
        '--start',
        '-1',
        '--quiet',
      ],
      io,
    );
    expect(code).toBe(ExitCode.Usage);
    const err = io.stderr.join('\n');
    for (const where of [
      '--export: expected prometheus|otlp=<URL>, got "statsd=udp://x"',
      '--export-interval',
      '--start',
    ])
      expect(err).toContain(where);
  });
});
