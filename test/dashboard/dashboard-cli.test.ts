import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import type { DashboardFrame } from '../../src/dashboard/index.js';
import type { Summary } from '../../src/report/summary.js';
import { captureIo, type CapturedIo } from '../helpers/cli-io.js';
import { runCliOnClock } from '../helpers/cli-on-clock.js';

const SCENARIOS = join(import.meta.dirname, '../../scenarios');

function urlOf(io: CapturedIo): string | undefined {
  return /dashboard: (http\S+)/.exec(io.stderr.join('\n'))?.[1];
}

/**
 * `frame.json` read every second of the run's manual clock (a fetch is an exchange like any other,
 * so the driver holds time while it is under way), from when the URL is printed on.
 */
function readEachSecond(
  io: CapturedIo,
  into: DashboardFrame[],
): (clock: { schedule(ms: number, fn: () => void): unknown }) => void {
  return (clock) => {
    const read = (): void => {
      clock.schedule(1000, read);
      const url = urlOf(io);
      if (url)
        void fetch(`${url}frame.json`)
          .then((r) => r.json())
          .then((f) => into.push(f as DashboardFrame))
          .catch(() => undefined);
    };
    clock.schedule(1000, read);
  };
}

describe('--dashboard on run and capacity (issue 51)', () => {
  it('run: prints the URL at start and serves the run so far, on the run clock', async () => {
    const io = captureIo();
    const out = mkdtempSync(join(tmpdir(), 'jobstorm-dash-cli-'));
    const frames: DashboardFrame[] = [];
    const code = await runCliOnClock(
      [
        'run',
        join(SCENARIOS, 'steady-load.yaml'),
        '--duration',
        '10s',
        '--dashboard',
        '0',
        '--quiet',
        '--out',
        out,
      ],
      io,
      { onClock: readEachSecond(io, frames) },
    );
    expect(code).toBe(0);
    expect(urlOf(io)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const running = frames.filter((f) => f.state === 'running');
    // One read a second of a 10 s run (its warm-up included): each a second later than the one before.
    expect(running.length).toBeGreaterThanOrEqual(8);
    const times = running.map((f) => f.elapsedMs);
    for (let i = 1; i < times.length; i++)
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeCloseTo(1000, -2);
    for (const f of running) expect(f.verdict).toContain('RUNNING');
    // The figures of the run so far: growing, and below what the whole run made.
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
    const shown = running.map((f) =>
      Number(/<td><code>run<\/code><\/td><td>(\d+)<\/td>/.exec(f.body)?.[1] ?? 0),
    );
    const measured = shown.filter((n) => n > 0);
    expect(measured.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < measured.length; i++)
      expect(measured[i]).toBeGreaterThanOrEqual(measured[i - 1] ?? 0);
    const total = summary.operations.run?.requests ?? 0;
    expect(measured[0]).toBeLessThan(total / 2);
    expect(measured.at(-1)).toBeLessThanOrEqual(total);
    expect(running.at(-1)?.body).toContain('data-figure="workers"');
  }, 120_000);

  it('capacity: shows the step under way, titled by its rate', async () => {
    const io = captureIo();
    const out = mkdtempSync(join(tmpdir(), 'jobstorm-dash-cap-'));
    const frames: DashboardFrame[] = [];
    const code = await runCliOnClock(
      [
        'capacity',
        join(SCENARIOS, 'steady-load.yaml'),
        '--slo',
        'p99(run) < 2s',
        '--start',
        '2',
        '--max',
        '4',
        '--step-duration',
        '6s',
        '--warmup',
        '1s',
        '--dashboard',
        '--quiet',
        '--out',
        out,
      ],
      io,
      { onClock: readEachSecond(io, frames) },
    );
    expect([0, 1]).toContain(code);
    const titles = new Set(frames.filter((f) => f.state === 'running').map((f) => f.title));
    expect([...titles][0]).toMatch(/^jobstorm capacity: step 1 at 2\/s/);
    expect([...titles].some((t) => /step 2 at 3\/s/.test(t))).toBe(true);
  }, 180_000);

  it('names a bad port or a host without --dashboard, before anything starts', async () => {
    const io = captureIo();
    const code = await runCli(
      ['run', join(SCENARIOS, 'smoke.yaml'), '--dashboard', 'eighty', '--dashboard-host', ''],
      io,
    );
    expect(code).toBe(2);
    const err = io.stderr.join('\n');
    expect(err).toContain('--dashboard: "eighty" is not a port');
    expect(err).toContain('--dashboard-host: is empty');
    const io2 = captureIo();
    expect(await runCli(['run', join(SCENARIOS, 'smoke.yaml'), '--dashboard-host', '127.0.0.1'], io2)).toBe(
      2,
    );
    expect(io2.stderr.join('\n')).toContain('--dashboard-host: needs --dashboard');
  });

  it('warns that a page bound beyond loopback has no authentication', async () => {
    const io = captureIo();
    const code = await runCliOnClock(
      [
        'run',
        join(SCENARIOS, 'smoke.yaml'),
        '--dashboard',
        '--dashboard-host',
        '0.0.0.0',
        '--quiet',
        '--out',
        mkdtempSync(join(tmpdir(), 'jobstorm-dash-any-')),
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.stderr.join('\n')).toMatch(/warning: the dashboard listens on 0\.0\.0\.0: .*no authentication/);
  }, 60_000);
});
