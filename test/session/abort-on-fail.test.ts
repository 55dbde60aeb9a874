import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import { startEmulatorInWorker, type EmulatorHandle } from '../../src/emulator/index.js';
import { captureIo } from '../helpers/cli-io.js';
import { expectReports, readSummary, tempDir } from '../e2e/helpers.js';

/*
 * Issue 35 items 1 and 2 against the emulator: its handler slows mid-run through the admin API
 * (PUT /_emulator/profile), and a windowed threshold with abortOnFail stops the run within its
 * window, its delayAbortEval and the drain; a run that stays healthy runs to its end; a
 * whole-run threshold that holds while a window fails is reported as such.
 */

let emulator: EmulatorHandle | undefined;

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(): Promise<EmulatorHandle> {
  emulator = await startEmulatorInWorker({ port: 0, coldStartMs: 0, workersMin: 60, workersMax: 100 });
  return emulator;
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

function run(
  e: EmulatorHandle,
  file: string,
  out: string,
): { io: ReturnType<typeof captureIo>; code: Promise<number> } {
  const io = captureIo();
  const code = runCli(
    ['run', file, '--target', e.url, '--api-key', e.apiKey, '--out', out, '--graceful-stop', '5s'],
    io,
  );
  return { io, code };
}

const ABORTING = `  - { threshold: "p99(runsync) < 500ms", window: 2s, abortOnFail: true, delayAbortEval: 1s }
  - "p99(runsync) < 10s"`;

describe('abortOnFail against the emulator', () => {
  it('a handler that slows mid-run stops the run within window + delayAbortEval + drain, and every report says why', async () => {
    const e = await start();
    await setHandlerMs(e, 5);
    const { dir, file } = await scenario(30, 20, ABORTING);
    const out = join(dir, 'report');
    const began = Date.now();
    const { io, code } = run(e, file, out);
    await new Promise((r) => setTimeout(r, 3000));
    const slowedAt = Date.now() - began;
    await setHandlerMs(e, 1500);
    expect(await code, io.stderr.join('\n')).toBe(ExitCode.Failed);
    expectReports(out, false);
    const s = await readSummary(out);
    expect(s.run.end).toBe('aborted');
    expect(s.run.aborted?.threshold).toBe('p99(runsync) < 500ms over 2s');
    const at = s.run.aborted?.at ?? 0;
    // Slow answers end 1.5 s after the change; then a 2 s window, judged once the next second began.
    expect(at * 1000).toBeLessThanOrEqual(slowedAt + 1500 + 2000 + 1000 + 2000);
    // Arrivals stopped there; the requests in flight drained (their 1.5 s, within the 3 s drain).
    expect(s.run.durationMs).toBeLessThan(at * 1000 + 3000 + 2000);
    expect(s.run.durationMs).toBeLessThan(20_000);
    expect(s.verdict.status).toBe('failed');
    expect(s.verdict.reasons[0]).toBe(`aborted: p99(runsync) < 500ms over 2s at t+${String(at)}s`);
    const warning = io.stderr.find((l) => l.includes('warning: aborted:'));
    expect(warning).toContain(`aborted: p99(runsync) < 500ms over 2s at t+${String(at)}s`);
    const md = await readFile(join(out, 'summary.md'), 'utf8');
    expect(md).toContain(`aborted: p99(runsync) < 500ms over 2s at t+${String(at)}s`);
    expect(await readFile(join(out, 'junit.xml'), 'utf8')).toContain('aborted: p99(runsync)');
    expect(io.stdout.join('\n')).toContain('aborted: p99(runsync)');
    const windowed = s.thresholds.find((t) => t.window);
    expect(windowed?.ok).toBe(false);
    expect(windowed?.window?.failed).toBeGreaterThan(0);
  }, 60_000);

  it('a run that stays healthy is never aborted', async () => {
    const e = await start();
    await setHandlerMs(e, 5);
    const { dir, file } = await scenario(5, 20, ABORTING);
    const out = join(dir, 'report');
    const { io, code } = run(e, file, out);
    expect(await code, io.stderr.join('\n')).toBe(ExitCode.Ok);
    const s = await readSummary(out);
    expect(s.run.end).toBe('completed');
    expect(s.run.aborted).toBeUndefined();
    expect(s.thresholds.every((t) => t.ok)).toBe(true);
    expect(s.thresholds[0]?.window?.failed).toBe(0);
    expect(io.stderr.join('\n')).not.toContain('aborted');
  }, 60_000);

  it('a whole-run threshold that holds while a window fails is reported as such', async () => {
    const e = await start();
    await setHandlerMs(e, 5);
    const { dir, file } = await scenario(
      10,
      30,
      `  - "p75(runsync) < 1s"
  - "p75(runsync) < 1s over 2s"`,
    );
    const out = join(dir, 'report');
    const { io, code } = run(e, file, out);
    await new Promise((r) => setTimeout(r, 4000));
    await setHandlerMs(e, 1500);
    await new Promise((r) => setTimeout(r, 800));
    await setHandlerMs(e, 5);
    expect(await code, io.stderr.join('\n')).toBe(ExitCode.Failed);
    const s = await readSummary(out);
    const [whole, windowed] = s.thresholds;
    expect(whole?.ok).toBe(true);
    expect(windowed?.ok).toBe(false);
    expect(windowed?.wholeRun?.ok).toBe(true);
    expect(windowed?.window?.failed).toBeGreaterThan(0);
    expect(windowed?.window?.failed).toBeLessThan(windowed?.window?.judged ?? 0);
    expect(s.run.end).toBe('completed');
    const terminal = io.stdout.join('\n');
    expect(terminal).toContain('holds over the whole run, fails in a window');
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html).toContain('shaded: windows failing a threshold');
  }, 60_000);
});
