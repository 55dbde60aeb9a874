import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { startEmbeddedTarget, type EmbeddedTarget } from '../../src/library/embedded-target.js';
import { renderHtml } from '../../src/report/html-reporter.js';
import { markdownReporter } from '../../src/report/markdown-reporter.js';
import { parseSummary } from '../../src/report/summary-schema.js';
import { terminalReporter } from '../../src/report/terminal-reporter.js';
import { parseScenario } from '../../src/scenario/scenario-parser.js';
import { RunSession } from '../../src/session/run-session.js';

/*
 * Issue 52, end to end: a run whose jobs never finish (no worker is free for a minute) holds no
 * more jobs than its caps, whatever its length, and its summary and every report say what the caps
 * dropped, with counts. The caps are the session's `limits`, small here, RunLimits' by default.
 */

const SCENARIO = `name: memory-caps
emulator: { workersMin: 1, workersMax: 1, coldStart: 0ms }
phases:
  - { duration: 2s, rate: 20 }
flows:
  - name: run-only
    steps:
      - run: { input: { sleep_ms: 60000 } }
`;

let embedded: EmbeddedTarget | undefined;

afterEach(async () => {
  await embedded?.emulator.close();
  embedded = undefined;
});

describe('a run past its memory caps', () => {
  it('counts what each cap dropped in summary.json and says so in every report', async () => {
    const scenario = parseScenario(SCENARIO, 'memory-caps.yaml', { env: {} });
    embedded = await startEmbeddedTarget(scenario);
    const session = new RunSession({
      clock: systemClock,
      scenario,
      target: embedded.target,
      runId: 'memory-caps',
      limits: { jobsFollowed: 5, checkJobsHeld: 4, checkJobsBrief: 10, queuedJobs: 8 },
      gracefulStopMs: 1000,
      drainMs: 1000,
    });
    await session.run();
    const summary = await session.finish();
    const submitted = summary.jobs.submitted;
    expect(submitted).toBeGreaterThan(20);

    expect(summary.caps).toEqual([
      { id: 'jobs.followed', limit: 5, dropped: submitted - 5 },
      { id: 'checks.held', limit: 4, dropped: submitted - 4 },
      { id: 'checks.brief', limit: 10, dropped: submitted - 4 - 10 },
      { id: 'checks.queued', limit: 8, dropped: submitted - 8 },
    ]);
    expect(summary.jobs.untracked).toBe(submitted - 5);

    const line = `jobs followed: 5 at once; ${String(submitted - 5)} given up on early (their final state not judged`;
    expect(terminalReporter.render(summary)).toContain(line);
    expect(markdownReporter.render(summary)).toContain(line);
    expect(renderHtml(summary)).toContain(line);
    expect(terminalReporter.render(summary)).toContain(
      `checks: the last 10 retired jobs kept in brief; ${String(submitted - 14)} older ones forgotten`,
    );

    // Read back as `jobstorm report` and `merge` read it: the counts stay.
    expect(parseSummary(JSON.parse(JSON.stringify(summary)), 'summary.json').caps).toEqual(summary.caps);
  }, 30_000);
});
