import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/cli.js';
import { readSummary } from '../../src/report/summary-schema.js';

/*
 * The live progress line and the end-of-run tally count jobs by one definition (the summary's: the
 * first final state an accepted answer showed). The case where two definitions part: a target
 * whose /cancel answers CANCELLED but lets the job run on to COMPLETED (the emulator's
 * cancel-ignored fault). A flow's own last-seen status says COMPLETED; the tally says CANCELLED.
 */
const SCENARIO = `name: cancel-then-complete
emulator:
  workersMin: 2
  workersMax: 2
  coldStart: 0ms
phases:
  - { name: p, count: 6, rate: 3 }
flows:
  - name: cancel-ignored
    steps:
      - run: { input: { sleep_ms: 1500 } }
      - cancel: {}
      - poll: { until: final, interval: 100ms, timeout: 10s }
`;

const STATES = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const;

function counts(line: string): Record<string, number> {
  const jobs = /jobs: (.*)$/.exec(line)?.[1] ?? '';
  return Object.fromEntries(
    jobs.split(' · ').map((p) => [p.slice(0, p.lastIndexOf(' ')), Number(p.slice(p.lastIndexOf(' ') + 1))]),
  );
}

describe('the live progress line', () => {
  it(
    'counts jobs as the summary does: never a state the final tally does not have, never more than it',
    { timeout: 60_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'jobstorm-progress-'));
      const scenario = join(dir, 'scenario.yaml');
      writeFileSync(scenario, SCENARIO);
      const live: string[] = [];
      const stderr: string[] = [];
      const io: CliIo = {
        out: () => undefined,
        err: (t) => stderr.push(t),
        env: {},
        interrupt: new AbortController().signal,
        isTty: true,
        liveLine: (t) => live.push(t),
      };
      const out = join(dir, 'out');
      await runCli(['run', scenario, '--fault', 'cancel-ignored', '--out', out], io);
      const summary = await readSummary(join(out, 'summary.json'));
      // The fault did its part: every job was answered CANCELLED, and the flows then saw it finish.
      expect(summary.jobs.byState.CANCELLED).toBe(6);
      expect(summary.jobs.byState.COMPLETED).toBe(0);
      expect(summary.operations.status?.requests ?? 0, stderr.join('\n')).toBeGreaterThan(6);

      const lines = live.filter((l) => l.includes('jobs: '));
      expect(lines.length, live.join('\n')).toBeGreaterThan(1);
      for (const line of lines) {
        for (const st of STATES)
          expect(counts(line)[st] ?? 0, line).toBeLessThanOrEqual(summary.jobs.byState[st]);
      }
      for (const line of lines) {
        const c = counts(line);
        expect(c.submitted ?? Infinity, line).toBeLessThanOrEqual(summary.jobs.submitted);
        expect(Object.keys(c).sort(), line).toEqual(expect.arrayContaining(['submitted', 'unfinished']));
      }
      // Once every job was cancelled (and before the run ended), the line said so in the tally's words.
      const last = counts(lines[lines.length - 1] ?? '');
      expect(last.CANCELLED).toBe(6);
      expect(last.submitted).toBe(6);
    },
  );
});
