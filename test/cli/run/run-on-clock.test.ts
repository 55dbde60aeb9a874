import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../../helpers/cli-io.js';
import { runCliOnClock } from '../../helpers/cli-on-clock.js';

interface Ran {
  run: { id: string; start: string; durationMs: number; end: string };
  jobs: { submitted: number; byState: { COMPLETED: number } };
  verdict: { status: string };
}

/*
 * `jobstorm run` handed a clock by an in-process caller (CliIo.clock) runs on it throughout: the
 * session, the run id's stamp and the embedded emulator, which starts in this thread on the same
 * clock (issue 46). Main.ts hands none: a user's run is unchanged.
 */
describe('jobstorm run in-process on a manual clock', () => {
  it('runs scenarios/steady-load.yaml against the embedded emulator on the clock: its 30 s pass on the clock', async () => {
    const out = await mkdtemp(join(tmpdir(), 'jobstorm-run-on-clock-'));
    const io = captureIo();
    const code = await runCliOnClock(['run', 'scenarios/steady-load.yaml', '--out', out], io);
    expect(code).toBe(0);
    expect(io.stderr.join('\n')).toContain('against the embedded emulator');
    const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as Ran;
    // The manual clock's zero is 2026-01-01T00:00:00Z (MANUAL_EPOCH_MS): the id and start say so.
    expect(summary.run.id).toBe('steady-load-20260101T000000Z');
    expect(summary.run.start).toBe('2026-01-01T00:00:00.000Z');
    expect(summary.run.end).toBe('completed');
    // The phases' 30 s and the drain, on the clock.
    expect(summary.run.durationMs).toBeGreaterThanOrEqual(30_000);
    // 40 a second for 30 s after a ramp: every job submitted completed, and the verdict judged them.
    expect(summary.jobs.submitted).toBeGreaterThan(1000);
    expect(summary.jobs.byState.COMPLETED).toBe(summary.jobs.submitted);
    expect(summary.verdict.status).toBe('passed');
  }, 60_000);
});
