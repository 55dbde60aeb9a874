import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/exit-code.js';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import { runJobstorm } from '../../src/library/run-jobstorm.js';
import type { JobstormRun } from '../../src/library/library-options.js';
import { renderTerminalSummary, writeReports } from '../../src/report/report-writer.js';
import { expectReports, readSummary, tempDir } from '../e2e/helpers.js';
import { manualTarget, type ManualTarget } from '../helpers/manual-target.js';

/*
 * Issue 35 items 1 and 2 against the emulator: its handler slows mid-run through the admin API
 * (PUT /_emulator/profile), and a windowed threshold with abortOnFail stops the run within its
 * window, its delayAbortEval and the drain; a run that stays healthy runs to its end; a
 * whole-run threshold that holds while a window fails is reported as such. The run and the
 * emulator share a manual clock (issue 46): the slow-down happens at an exact second of the run,
 * and a loaded machine cannot make a healthy second look slow.
 */

let m: ManualTarget | undefined;

afterEach(async () => {
  await m?.emulator.close();
  m = undefined;
});

async function start(): Promise<ManualTarget> {
  m = await manualTarget({ workersMin: 60, workersMax: 100 });
  await setHandlerMs(m.emulator, 5);
  return m;
}

/** The handler takes `ms` for every job from now on (jobs that give no sleep_ms of their own). */
async function setHandlerMs(e: EmulatorHandle, ms: number): Promise<void> {
  const res = await fetch(`${e.adminUrl}/profile`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${e.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ duration: { kind: 'fixed', ms } }),
  });
  expect(res.status).toBe(200);
}

async function scenario(
  seconds: number,
  rate: number,
  thresholds: string,
): Promise<{ dir: string; file: string }> {
  const dir = await tempDir('abort');
  const file = join(dir, 'abort-proof.yaml');
  await writeFile(
    file,
    `name: abort-proof
phases:
  - { duration: ${String(seconds)}s, rate: ${String(rate)} }
flows:
  - name: sync
    steps:
      - runsync: { input: { prompt: hello }, wait: 10s }
thresholds:
${thresholds}
`,
  );
  return { dir, file };
}

/** Handler times from given seconds of the run on: `[3000, 1500]` makes every job take 1.5 s from t+3s. */
type Changes = readonly (readonly [atMs: number, handlerMs: number])[];

interface Ran {
  run: JobstormRun;
  warnings: string[];
  /** What the terminal shows after the run. */
  terminal: string;
}

/** Runs the scenario as `jobstorm run --graceful-stop 5s` does, its reports written into `out`. */
async function run(t: ManualTarget, file: string, out: string, changes: Changes = []): Promise<Ran> {
  const warnings: string[] = [];
  const pending: Promise<void>[] = [];
  const ran = await t.driver.run(
    runJobstorm({
      scenarioFile: file,
      target: t.target,
      clock: t.clock,
      gracefulStopMs: 5000,
      onWarning: (w) => warnings.push(w),
      // Time 0 is the run record: the changes count from it, as the run's seconds do.
      onRecord: (r) => {
        if (r.type !== 'run') return;
        for (const [atMs, handlerMs] of changes)
          t.clock.schedule(atMs, () => pending.push(setHandlerMs(t.emulator, handlerMs)));
      },
    }),
  );
  await Promise.all(pending);
  await writeReports(ran.summary, out);
  return { run: ran, warnings, terminal: renderTerminalSummary(ran.summary) };
}

const ABORTING = `  - { threshold: "p99(runsync) < 500ms", window: 2s, abortOnFail: true, delayAbortEval: 1s }
  - "p99(runsync) < 10s"`;

describe('abortOnFail against the emulator', () => {
  it('a handler that slows mid-run stops the run within window + delayAbortEval + drain, and every report says why', async () => {
    const t = await start();
    const { dir, file } = await scenario(30, 20, ABORTING);
    const out = join(dir, 'report');
    const slowedAt = 3000;
    const { run: ran, warnings, terminal } = await run(t, file, out, [[slowedAt, 1500]]);
    expect(ran.exitCode, warnings.join('\n')).toBe(ExitCode.Failed);
    expectReports(out, false);
    const s = await readSummary(out);
    expect(s.run.end).toBe('aborted');
    expect(s.run.aborted?.threshold).toBe('p99(runsync) < 500ms over 2s');
    const at = s.run.aborted?.at ?? 0;
    // Slow answers end 1.5 s after the change; then a 2 s window, judged once the next second began.
    expect(at * 1000).toBeGreaterThan(slowedAt);
    expect(at * 1000).toBeLessThanOrEqual(slowedAt + 1500 + 2000 + 1000);
    // Arrivals stopped there; the requests in flight drained (their 1.5 s, within the 3 s drain).
    expect(s.run.durationMs).toBeLessThan(at * 1000 + 3000);
    expect(s.verdict.status).toBe('failed');
    expect(s.verdict.reasons[0]).toBe(`aborted: p99(runsync) < 500ms over 2s at t+${String(at)}s`);
    const warning = warnings.find((l) => l.startsWith('aborted:'));
    expect(warning).toContain(`aborted: p99(runsync) < 500ms over 2s at t+${String(at)}s`);
    const md = await readFile(join(out, 'summary.md'), 'utf8');
    expect(md).toContain(`aborted: p99(runsync) < 500ms over 2s at t+${String(at)}s`);
    expect(await readFile(join(out, 'junit.xml'), 'utf8')).toContain('aborted: p99(runsync)');
    expect(terminal).toContain('aborted: p99(runsync)');
    const windowed = s.thresholds.find((t) => t.window);
    expect(windowed?.ok).toBe(false);
    expect(windowed?.window?.failed).toBeGreaterThan(0);
  });

  it('a run that stays healthy is never aborted', async () => {
    const t = await start();
    const { dir, file } = await scenario(5, 20, ABORTING);
    const out = join(dir, 'report');
    const { run: ran, warnings } = await run(t, file, out);
    expect(ran.exitCode, warnings.join('\n')).toBe(ExitCode.Ok);
    const s = await readSummary(out);
    expect(s.run.end).toBe('completed');
    expect(s.run.aborted).toBeUndefined();
    expect(s.thresholds.every((t) => t.ok)).toBe(true);
    expect(s.thresholds[0]?.window?.failed).toBe(0);
    expect(warnings.join('\n')).not.toContain('aborted');
  });

  it('a whole-run threshold that holds while a window fails is reported as such', async () => {
    const t = await start();
    const { dir, file } = await scenario(
      10,
      30,
      `  - "p75(runsync) < 1s"
  - "p75(runsync) < 1s over 2s"`,
    );
    const out = join(dir, 'report');
    const {
      run: ran,
      warnings,
      terminal,
    } = await run(t, file, out, [
      [4000, 1500],
      [4800, 5],
    ]);
    expect(ran.exitCode, warnings.join('\n')).toBe(ExitCode.Failed);
    const s = await readSummary(out);
    const [whole, windowed] = s.thresholds;
    expect(whole?.ok).toBe(true);
    expect(windowed?.ok).toBe(false);
    expect(windowed?.wholeRun?.ok).toBe(true);
    expect(windowed?.window?.failed).toBeGreaterThan(0);
    expect(windowed?.window?.failed).toBeLessThan(windowed?.window?.judged ?? 0);
    expect(s.run.end).toBe('completed');
    expect(terminal).toContain('holds over the whole run, fails in a window');
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html).toContain('shaded: windows failing a threshold');
  });
});
