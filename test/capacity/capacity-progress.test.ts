import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import { captureIo, type CapturedIo } from '../helpers/cli-io.js';
import { manualTarget, quietLoop } from '../helpers/manual-target.js';

/*
 * Issue 34: `capacity` was silent for the whole of each step, and said its plan and SLO only after
 * the last one. Now the plan and SLO come first, each step shows its progress as it runs (the
 * progress line of `run`), and its result line is printed as it ends, the live line cleared first.
 * The command runs in-process on a manual clock against an emulator on the same clock (issue 46):
 * its steps' seconds pass as fast as loopback answers.
 */
const SCENARIO = `
name: capacity-progress
emulator: { workersMin: 2, workersMax: 2, coldStart: 0ms }
phases: [{ duration: 5s, rate: 5 }]
flows:
  - name: submit-and-poll
    steps:
      - run: { input: { sleep_ms: 20 } }
      - poll: { until: final, interval: 100ms, timeout: 10s }
`;

const ARGS = ['--slo', 'p95(e2e) < 5s', '--start', '4', '--factor', '1.5', '--mode', 'step'];
const TIMING = ['--step-duration', '2s', '--warmup', '1s'];

/** `jobstorm capacity` with `args`, against an in-process emulator on the command's manual clock. */
async function capacity(args: readonly string[], io: CapturedIo): Promise<number> {
  const m = await manualTarget({ workersMin: 2, workersMax: 2 });
  try {
    return await m.driver.run(
      runCli(['capacity', ...args, '--target', m.emulator.url, '--api-key', m.emulator.apiKey], {
        ...io,
        clock: m.clock,
        generatorProbe: quietLoop,
      }),
    );
  } finally {
    await m.emulator.close();
  }
}

async function scenarioFile(): Promise<{ file: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'jobstorm-capacity-progress-'));
  const file = join(dir, 'capacity.yaml');
  await writeFile(file, SCENARIO);
  return { file, dir };
}

describe('capacity progress', () => {
  it('in a log: the plan and SLO first, a plain progress line a second in each step, each step line as it ends', async () => {
    const { file, dir } = await scenarioFile();
    const io = captureIo();
    const code = await capacity([file, ...ARGS, '--max', '6', ...TIMING, '--out', join(dir, 'log')], io);
    expect(code, io.stderr.join('\n')).toBe(ExitCode.Ok);
    const err = io.stderr;
    const plan = err.findIndex((l) => /step search from 4\/s/.test(l));
    const slo = err.findIndex((l) => l.includes('SLO: p95(e2e) < 5s'));
    const firstProgress = err.findIndex(
      (l) => /^step 1 at 4\.0\/s {2}\d+s\/3s/.test(l) || /^warm-up · step 1/.test(l),
    );
    const step1 = err.findIndex((l) => l.startsWith('step 1 (step)'));
    const step2Progress = err.findIndex((l) => /step 2 at 6\.0\/s/.test(l));
    const step2 = err.findIndex((l) => l.startsWith('step 2 (step)'));
    expect(
      [plan, slo, firstProgress, step1, step2Progress, step2].every((i) => i >= 0),
      err.join('\n'),
    ).toBe(true);
    expect(plan).toBeLessThan(firstProgress);
    expect(slo).toBeLessThan(firstProgress);
    expect(firstProgress).toBeLessThan(step1);
    expect(step1).toBeLessThan(step2Progress);
    expect(step2Progress).toBeLessThan(step2);
    // No checks run in a capacity step: a violation count could only read 0, so it is not shown.
    expect(err.filter((l) => / {2}\d+s\/3s {2}/.test(l)).some((l) => l.includes('violations'))).toBe(false);
    for (const l of err) expect(l.includes('\r') || l.includes(String.fromCharCode(27))).toBe(false);
  });

  it('on a terminal: the live line is redrawn during each step and cleared before each step line', async () => {
    const { file, dir } = await scenarioFile();
    const events: string[] = [];
    const io = {
      ...captureIo(),
      isTty: true,
      columns: () => 80,
      liveLine: (t: string) => events.push(`live:${t}`),
    };
    io.err = (t: string) => events.push(`err:${t}`);
    const code = await capacity([file, ...ARGS, ...TIMING, '--max', '4', '--out', join(dir, 'tty')], io);
    expect(code, events.join('\n')).toBe(ExitCode.Ok);
    const drawn = events.filter((e) => e.startsWith('live:') && e !== 'live:');
    expect(drawn.length, events.join('\n')).toBeGreaterThan(0);
    for (const d of drawn) expect(d.length - 'live:'.length).toBeLessThan(80);
    const stepAt = events.findIndex((e) => e.startsWith('err:step 1 (step)'));
    expect(stepAt).toBeGreaterThan(0);
    expect(events[stepAt - 1]).toBe('live:');
    expect(events.slice(0, stepAt).some((e) => /^live:step 1 at 4\.0\/s/.test(e))).toBe(true);
  });
});
