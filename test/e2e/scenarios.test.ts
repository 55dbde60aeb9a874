import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { systemClock } from '../../src/core/clock.js';
import { ExitCode } from '../../src/core/exit-code.js';
import { captureIo } from '../helpers/cli-io.js';
import { runCliOnClock } from '../helpers/cli-on-clock.js';
import { expectReports, readRecords, readSummary, root, tempDir } from './helpers.js';

/*
 * Issue 4: every shipped scenario runs and completes against the embedded emulator, as a quick
 * check (`--duration`, `--rate-scale`), with its own thresholds, zero violations and reports.
 * Each run is `jobstorm run` in-process on a manual clock (runCliOnClock, issue 46): the embedded
 * emulator starts in this thread on the same clock, so a run's seconds pass as fast as loopback
 * answers, and its latencies, hence its latency bounds, read the same on a loaded host as on an
 * idle one. ttl-and-retention alone runs on the wall clock (see its case); it has no latency bound.
 */

interface Case {
  args: string[];
  /** Its flows follow every job they submit to a final state. */
  followsJobs: boolean;
  /** Runs on the wall clock, not a manual one (why: at its case). */
  wallClock?: true;
}

const CASES: Record<string, Case> = {
  // Squeezed to 14 s (the full file, every scaling check exercised, runs in test/check/scaling.test.ts).
  'burst-scaling': { args: ['--duration', '14s'], followsJobs: true },
  'cancel-storm': { args: ['--duration', '3s'], followsJobs: true },
  // Probes submit jobs at the edges and do not follow them.
  limits: { args: [], followsJobs: false },
  // Its /run jobs are read through /stream to the end; the whole file runs in test/e2e/llm-stream.test.ts.
  'llm-stream': { args: ['--duration', '3s'], followsJobs: true },
  // Slow jobs and two workers: a lower rate keeps the queue drainable in seconds.
  // Streamed chat completions beside /run jobs it follows to the end.
  'openai-chat': { args: ['--duration', '3s'], followsJobs: true },
  'purge-under-load': { args: ['--duration', '3s', '--rate-scale', '0.25'], followsJobs: true },
  ramp: { args: ['--duration', '3s'], followsJobs: true },
  // Submit-only by design: every 429 stays visible. Squeezed into 3 s, the rates need scaling up
  // to still cross /run's 1000 per 10 s.
  'rate-limit-probe': { args: ['--duration', '3s', '--rate-scale', '3'], followsJobs: false },
  // The timed-out job's retry is looked at once (status), not followed.
  'retry-cycle': { args: ['--duration', '2s'], followsJobs: false },
  smoke: { args: ['--duration', '2s'], followsJobs: true },
  'steady-load': { args: ['--duration', '3s'], followsJobs: true },
  'stream-consumers': { args: ['--duration', '2s'], followsJobs: true },
  // Wall clock: its time is the emulator's own manual clock, moved by its `advance` steps, and one
  // virtual user runs its iterations back to back. On a manual run clock every loopback answer
  // takes no time, so the driver never sees a quiet moment to move the run clock to the phase's end
  // and the loop never stops; the wall clock ends the phase after 1 s, as in a user's run.
  'ttl-and-retention': { args: ['--duration', '1s'], followsJobs: true, wallClock: true },
  webhooks: { args: ['--duration', '2s'], followsJobs: true },
};

const shipped = readdirSync(join(root, 'scenarios')).filter((f) => /\.(ya?ml|json|ts)$/.test(f));

describe('shipped scenarios', () => {
  it('every file in scenarios/ has a case here', () => {
    expect(shipped.map((f) => f.replace(/\.[^.]+$/, '')).sort()).toEqual(Object.keys(CASES).sort());
  });

  for (const file of shipped) {
    const name = file.replace(/\.[^.]+$/, '');
    it(`${name} runs and completes with no violations`, async () => {
      const c = CASES[name];
      if (!c) throw new Error(`no case for ${file}`);
      const out = await tempDir(name);
      const io = captureIo();
      const argv = ['run', join(root, 'scenarios', file), ...c.args, '--out', out, '--record', '--quiet'];
      // Real time: ttl-and-retention only, whose 1 s phase only the wall clock ends (see its case).
      // In-process on the system clock, its emulator starts in this thread (no worker thread to
      // load), on the manual clock of its own that its `advance` steps move.
      const code = c.wallClock
        ? await runCli(argv, { ...io, clock: systemClock })
        : await runCliOnClock(argv, io);
      expectReports(out, true);
      const summary = await readSummary(out);
      // The run is --quiet and its folder is temporary: a failure says here what failed.
      const why = [
        ...io.stderr,
        ...summary.verdict.reasons,
        ...summary.violations.map((v) => `${v.id} ×${String(v.count)}: ${v.examples[0]?.message ?? ''}`),
        ...summary.thresholds
          .filter((t) => !t.ok)
          .map((t) => `threshold ${t.expression} = ${String(t.value)}`),
      ];
      // On the manual clock a latency is the emulator's timing and the scenario's own, not the host's
      // load: every threshold holds, latency bounds included, and the run passes. (The one run on
      // the wall clock, ttl-and-retention, has no latency bound to be judged by the host.)
      expect(
        summary.violations.map((v) => v.id),
        why.join('\n'),
      ).toEqual([]);
      expect(
        summary.thresholds.filter((t) => !t.ok),
        why.join('\n'),
      ).toEqual([]);
      expect(summary.run.end, why.join('\n')).toBe('completed');
      expect(summary.verdict.status, why.join('\n')).toBe('passed');
      expect(code, why.join('\n')).toBe(ExitCode.Ok);
      expect(summary.jobs.submitted).toBeGreaterThan(0);
      expect(summary.jobs.untracked).toBe(0);
      const records = await readRecords(out);
      // Transport errors are failures, except a reset on a probe meant to be refused: a server
      // may refuse an oversize upload by closing the connection while the body is still going out.
      const failed = records.filter(
        (r) =>
          r.type === 'exchange' &&
          r.error !== undefined &&
          !(r.req?.expect === 'reject' && r.error.kind === 'reset'),
      );
      expect(
        failed.map((r) =>
          r.type === 'exchange'
            ? `${r.op} ${r.step ?? ''} at ${r.sentAt.toFixed(0)} ms: ${JSON.stringify(r.error)}`
            : '',
        ),
      ).toEqual([]);
      if (c.followsJobs) expect(summary.jobs.unfinished, 'jobs left in a non-final state').toBe(0);
      // The emulator reads and drops the rest of an oversize upload, so its refusal always arrives.
      if (name === 'limits')
        expect(
          records.filter(
            (r) => r.type === 'exchange' && r.req?.expect === 'reject' && r.status === undefined,
          ),
        ).toEqual([]);
      expect(records[0]?.type).toBe('run');
      expect(records.filter((r) => r.type === 'exchange').length).toBeGreaterThan(0);
      if (name === 'rate-limit-probe') expect(summary.operations.run?.count429).toBeGreaterThan(0);
      if (name === 'retry-cycle') expect(summary.jobs.retried).toBeGreaterThan(0);
      if (name === 'webhooks') expect(summary.webhooks.received).toBeGreaterThan(0);
      if (name === 'openai-chat')
        expect(records.some((r) => r.type === 'exchange' && r.op === 'openai' && r.sse?.done === true)).toBe(
          true,
        );
      if (name === 'cancel-storm') expect(summary.jobs.byState.CANCELLED).toBeGreaterThan(0);
    }, 120_000);
  }
});
