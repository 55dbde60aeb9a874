import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CapacityReport } from '../../src/capacity/index.js';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import type { EmulatorOptions } from '../../src/emulator/options.js';
import { cliClock, runCliOnClock } from '../helpers/cli-on-clock.js';
import { captureIo, type CapturedIo } from '../helpers/cli-io.js';
import { manualTarget, quietLoop, type ManualTarget } from '../helpers/manual-target.js';
import { startPartialServer } from '../foreign/partial-server.js';

/** A scenario for the embedded emulator: `workers` fixed workers, jobs of `sleepMs`. */
function scenarioYaml(workers: number, sleepMs: number): string {
  return `
name: capacity-cli
emulator: { workersMin: ${String(workers)}, workersMax: ${String(workers)}, coldStart: 0ms, requestsPerWorker: 100000 }
phases: [{ duration: 5s, rate: 10 }]
flows:
  - name: submit-and-poll
    steps:
      - run: { input: { sleep_ms: ${String(sleepMs)} } }
      - poll: { until: final, interval: 200ms, backoff: 1.5, maxInterval: 1s, timeout: 30s }
thresholds:
  - "violations == 0"
  - "p95(delayTime) < 1s"
`;
}

/** The embedded emulator of scenarioYaml(workers, …), in-process on a manual clock. */
const emulatorOf = (workers: number): Omit<EmulatorOptions, 'clock'> => ({
  workersMin: workers,
  workersMax: workers,
  requestsPerWorker: 100_000,
});

/**
 * `jobstorm capacity` in-process on a manual clock shared with an emulator as `--target` (issue
 * 46): the steps' seconds pass as fast as loopback answers, and read the same on every machine.
 * `key` overrides the emulator's key; `onStart` may set timers on the clock.
 */
async function capacityOnClock(
  emulator: Omit<EmulatorOptions, 'clock'>,
  args: readonly string[],
  io: CapturedIo,
  o: { key?: string; onStart?: (m: ManualTarget) => void } = {},
): Promise<number> {
  const m = await manualTarget(emulator);
  o.onStart?.(m);
  try {
    return await m.driver.run(
      runCli(['capacity', ...args, '--target', m.emulator.url, '--api-key', o.key ?? m.emulator.apiKey], {
        ...io,
        clock: m.clock,
        generatorProbe: quietLoop,
      }),
    );
  } finally {
    await m.emulator.close();
  }
}

describe('jobstorm capacity', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobstorm-capacity-cli-'));
    await writeFile(join(dir, 'fast.yaml'), scenarioYaml(4, 50));
    await writeFile(join(dir, 'slow.yaml'), scenarioYaml(1, 500));
  });

  it('reports every bad input at once (exit 2) and sends nothing', async () => {
    const io = captureIo();
    const code = await runCli(
      [
        'capacity',
        join(dir, 'fast.yaml'),
        '--slo',
        'p99(nope) < 1s',
        '--slo',
        'violations == 0',
        '--slo',
        'count(violation:nosuch) == 0',
        '--start',
        '-5',
        '--factor',
        '2',
        '--increment',
        '3',
        '--step-duration',
        'soon',
        '--target',
        'not a url',
      ],
      io,
    );
    expect(code).toBe(ExitCode.Usage);
    const err = io.stderr.join('\n');
    for (const where of [
      '--slo: "p99(nope) < 1s"',
      '--slo: "violations == 0"',
      '--slo: "count(violation:nosuch) == 0": "violation:nosuch" matches no check id',
      '--start',
      '--increment: give --factor or --increment',
      '--step-duration',
      '--target: not a URL',
    ]) {
      expect(err).toContain(where);
    }
    const missing = captureIo();
    expect(await runCli(['capacity', join(dir, 'missing.yaml')], missing)).toBe(ExitCode.Usage);
  });

  it('exits 3 when the target cannot be reached', { timeout: 30_000 }, async () => {
    const io = captureIo();
    const out = join(dir, 'unreachable');
    const code = await runCli(
      [
        'capacity',
        join(dir, 'fast.yaml'),
        '--target',
        'http://127.0.0.1:1/v2/nothing',
        '--api-key',
        'k',
        '--out',
        out,
        '--quiet',
      ],
      io,
    );
    expect(code).toBe(ExitCode.Aborted);
    const report = JSON.parse(await readFile(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
    expect(report.targetUnreachable).toBe(true);
    expect(report.verdict).toBe('unknown');
  });

  it(
    'a wrong key fails the first step at once (no waiting on /health) and exits 1',
    { timeout: 30_000 },
    async () => {
      {
        const io = captureIo();
        const out = join(dir, 'wrong-key');
        const code = await capacityOnClock(
          { workersMin: 1, workersMax: 1 },
          [
            join(dir, 'fast.yaml'),
            '--start',
            '5',
            '--step-duration',
            '1s',
            '--warmup',
            '0s',
            '--out',
            out,
            '--quiet',
          ],
          io,
          { key: 'wrong' },
        );
        expect(code).toBe(ExitCode.Failed);
        const report = JSON.parse(await readFile(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
        // The search's own measure of its length: one 1 s step, no wait for a queue to settle.
        expect(report.durationMs).toBeLessThan(15_000);
        expect(report.steps[0]?.reasons).toContain('no job was accepted in the measured window');
      }
    },
  );

  it(
    'Ctrl-C ends the search with what it has: the stopped step is reported, exit 130',
    { timeout: 60_000 },
    async () => {
      const io = captureIo();
      const out = join(dir, 'interrupted');
      const running = capacityOnClock(
        emulatorOf(4),
        [join(dir, 'fast.yaml'), '--start', '10', '--step-duration', '20s', '--warmup', '0s', '--out', out],
        io,
        // Interrupt 7 s into the first step (its progress shows on stderr only when it ends),
        // counted from the emulator's first request: a timer set before the command's modules
        // load (lazily, off the clock) could fire before the search begins.
        {
          onStart: (m) => {
            const first = (): void => {
              unsubscribe('http.server.request.start', first);
              m.clock.schedule(7000, () => io.controller.abort(new Error('interrupted')));
            };
            subscribe('http.server.request.start', first);
          },
        },
      );
      const code = await running;
      expect(code).toBe(ExitCode.Interrupted);
      const report = JSON.parse(await readFile(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
      expect(report.interrupted).toBe(true);
      expect(report.verdict).toBe('unknown');
      expect(report.steps).toHaveLength(1);
      expect(report.steps[0]?.reasons).toContain('interrupted before the step ended');
      expect(report.steps[0]?.measuredMs ?? 0).toBeLessThan(20_000);
    },
  );

  it(
    'a step at which the target drops connections fails, whatever its latency (a server that is not our emulator)',
    { timeout: 60_000 },
    async () => {
      // On a manual clock shared with the server (issue 46): on real time a starved machine made the
      // step inconclusive (generator-limited) instead of failed, whatever the resets.
      const clock = cliClock();
      const server = await startPartialServer({ resetEvery: 5, jobMs: 50, clock });
      try {
        const io = captureIo();
        const out = join(dir, 'resets');
        const code = await runCliOnClock(
          [
            'capacity',
            join(dir, 'fast.yaml'),
            '--target',
            server.base,
            '--api-key',
            'k',
            '--start',
            '10',
            '--max',
            '10',
            '--step-duration',
            '2s',
            '--warmup',
            '500ms',
            '--slo',
            'p95(e2e) < 5s',
            '--out',
            out,
            '--quiet',
          ],
          io,
          { clock },
        );
        expect(code, io.stderr.join('\n')).toBe(ExitCode.Failed);
        const report = JSON.parse(await readFile(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
        expect(report.steps).toHaveLength(1);
        expect(report.steps[0]?.passed).toBe(false);
        expect(report.steps[0]?.reasons.join('\n')).toMatch(
          /the target left \d+ of \d+ requests \([\d.]+%\) without a usable answer \(reset \d+\)/,
        );
      } finally {
        await server.close();
      }
    },
  );

  it(
    'a target that goes down mid-search: exit 3, naming the step it went down in and the rate it had passed',
    { timeout: 60_000 },
    async () => {
      const clock = cliClock();
      const server = await startPartialServer({ jobMs: 50, clock });
      const io = captureIo();
      const out = join(dir, 'went-down');
      // Gone the moment step 1 is reported, before step 2 sends (a timer polling the output could
      // fire late on a loaded machine and let step 2 get answers): step 2 gets no answer at all.
      const err = io.err.bind(io);
      io.err = (text: string): void => {
        err(text);
        if (/^step 1 \(step\)/.test(text)) void server.close();
      };
      try {
        const code = await runCliOnClock(
          [
            'capacity',
            join(dir, 'fast.yaml'),
            '--target',
            server.base,
            '--api-key',
            'k',
            '--start',
            '10',
            '--factor',
            '2',
            '--max',
            '40',
            '--step-duration',
            '2s',
            '--warmup',
            '500ms',
            '--slo',
            'p95(e2e) < 5s',
            '--out',
            out,
          ],
          io,
          { clock },
        );
        expect(code, io.stderr.join('\n')).toBe(ExitCode.Aborted);
        const report = JSON.parse(await readFile(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
        expect(report.targetUnreachable).toBe(true);
        expect(report.steps.map((x) => x.passed)).toEqual([true, false]);
        const headline =
          'No verdict: the target stopped answering during step 2 (20/s), after passing at 10/s; the search ended there';
        expect(io.stdout.join('\n')).toContain(headline);
        expect(await readFile(join(out, 'capacity.md'), 'utf8')).toContain(headline);
        expect(io.stderr.join('\n')).toContain(
          `the target ${server.base} stopped answering during step 2; the search ended there.`,
        );
        expect(io.stderr.join('\n')).not.toContain('could not be reached');
      } finally {
        await server.close();
      }
    },
  );

  it('exits 1 when even the first step fails', { timeout: 60_000 }, async () => {
    const io = captureIo();
    const out = join(dir, 'slow');
    const code = await capacityOnClock(
      emulatorOf(1),
      [join(dir, 'slow.yaml'), '--start', '20', '--step-duration', '2s', '--warmup', '500ms', '--out', out],
      io,
    );
    expect(code, io.stderr.join('\n')).toBe(ExitCode.Failed);
    expect(io.stdout.join('\n')).toContain('No sustainable rate found');
    const report = JSON.parse(await readFile(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
    expect(report.verdict).toBe('none');
    expect(report.steps).toHaveLength(1);
    // The scenario's "violations == 0" is skipped (no checks run); its delay threshold is the SLO.
    expect(report.slo).toEqual(['p95(delayTime) < 1s']);
    expect(io.stderr.join('\n')).toContain('skipping "violations == 0"');
  });

  it(
    'exits 0 and writes capacity.json, .md and .html when a capacity is found',
    { timeout: 60_000 },
    async () => {
      const io = captureIo();
      const out = join(dir, 'fast');
      const code = await capacityOnClock(
        emulatorOf(4),
        [
          join(dir, 'fast.yaml'),
          ...['--start', '10', '--factor', '2', '--max', '20', '--step-duration', '2s', '--warmup', '500ms'],
          ...['--slo', 'p95(e2e) < 2s', '--out', out],
        ],
        io,
      );
      expect(code, io.stderr.join('\n')).toBe(ExitCode.Ok);
      const report = JSON.parse(await readFile(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
      expect(report.verdict).toBe('at-least');
      expect(report.capacity).toBe(20);
      expect(report.steps.map((s) => s.offeredRate)).toEqual([10, 20]);
      expect(report.slo).toEqual(['p95(e2e) < 2s']);
      // The offered rate, named as such, with what was submitted and achieved beside it (issue 47).
      expect(await readFile(join(out, 'capacity.md'), 'utf8')).toMatch(
        /Sustainable up to at least 20 arrivals\/s offered \([\d.]+ jobs\/s submitted, [\d.]+ jobs\/s achieved\)/,
      );
      expect(await readFile(join(out, 'capacity.html'), 'utf8')).toContain('chart-rates');
      expect(io.stderr.join('\n')).toMatch(/step 2 \(step\) 20\/s offered/);
    },
  );

  it(
    'a step that fails while jobstorm itself is the bottleneck stops the search without blaming the target (exit 4)',
    { timeout: 60_000 },
    async () => {
      const io = captureIo();
      const out = join(dir, 'generator-limited');
      // The busy-loop hook: 48 ms of every 50 spent spinning on jobstorm's own thread (the CLI runs
      // in-process), so its latencies are its own queueing and the SLO fails because of it. Real
      // time: the real event loop held busy is what the watch must see.
      const hook = setInterval(() => {
        const end = performance.now() + 48;
        while (performance.now() < end);
      }, 50);
      let code: number;
      try {
        code = await runCli(
          [
            'capacity',
            join(dir, 'fast.yaml'),
            '--slo',
            'p50(run) < 5ms',
            '--start',
            '10',
            '--factor',
            '2',
            '--max',
            '40',
            '--mode',
            'step',
            '--step-duration',
            '3s',
            '--warmup',
            '1s',
            '--out',
            out,
            '--quiet',
          ],
          io,
        );
      } finally {
        clearInterval(hook);
      }
      const report = JSON.parse(await readFile(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
      expect(code, JSON.stringify(report.steps.map((x) => x.reasons))).toBe(ExitCode.Inconclusive);
      expect(report.steps).toHaveLength(1);
      const step = report.steps[0];
      expect(step?.passed).toBe(false);
      expect(step?.generatorLimited?.durationMs).toBeGreaterThan(1000);
      // The hook saturates the loop; on a machine loaded by parallel test files the watch may find
      // the process starved of CPU as well (measured in a CI run of 2026-11-26): either is jobstorm's.
      expect(step?.reasons[0]).toMatch(
        /^jobstorm itself was the bottleneck for \d+\.\d s of the measured window \((its event loop saturated|starved of CPU)\): this failure may be jobstorm's, not the target's$/,
      );
      expect(report.generatorLimitedAt).toBe(10);
      expect(report.verdict).toBe('unknown');
      expect(report.confidence).toEqual({ lastPassing: null, firstFailing: null });
      const md = await readFile(join(out, 'capacity.md'), 'utf8');
      expect(md).toContain(
        'No verdict: at 10/s jobstorm itself was the bottleneck and the search stopped there',
      );
      expect(md).toContain('FAIL (generator-limited)');
    },
  );
});
