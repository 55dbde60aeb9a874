import { describe, expect, it } from 'vitest';
import { ConfigError, ExitCode, runJobstorm, type JobstormRecord } from '../../src/index.js';
import type { JobstormRun } from '../../src/library/library-options.js';
import type { ScenarioInput } from '../../src/scenario/index.js';
import { manualTarget } from '../helpers/manual-target.js';

/*
 * Issue 33 item 1: the programmatic API runs a scenario object against the embedded emulator it
 * starts and closes itself, stops on an AbortSignal, and refuses a bad configuration before
 * anything is sent.
 */
const SCENARIO: ScenarioInput = {
  name: 'library-api',
  phases: [{ duration: '2s', rate: 4 }],
  flows: [
    {
      name: 'submit',
      steps: [
        { run: { input: { sleep_ms: 10 } } },
        { poll: { until: 'final', interval: '100ms', timeout: '5s' } },
      ],
    },
  ],
  thresholds: ['violations == 0'],
};

describe('runJobstorm', () => {
  it('runs a scenario object against the embedded emulator and returns its summary', async () => {
    const records: JobstormRecord[] = [];
    const run = await runJobstorm({ scenario: SCENARIO, onRecord: (r) => records.push(r) });
    expect(run.summary.verdict.status).toBe('passed');
    expect(run.exitCode).toBe(ExitCode.Ok);
    expect(run.summary.run.ownsEndpoint).toBe(true);
    expect(run.summary.jobs.submitted).toBeGreaterThan(0);
    expect(run.summary.thresholds.map((t) => [t.expression, t.ok])).toEqual([['violations == 0', true]]);
    expect(records[0]?.type).toBe('run');
    expect(records.filter((r) => r.type === 'exchange').length).toBe(
      Object.values(run.summary.operations).reduce((n, o) => n + o.requests, 0),
    );
  }, 60_000);

  it('stops when its signal is aborted, with the verdict interrupted', async () => {
    const stop = new AbortController();
    const long: ScenarioInput = { ...SCENARIO, phases: [{ duration: '60s', rate: 4 }] };
    // On a manual clock shared with an in-process emulator (issue 46): the signal comes 1.5 s in.
    const t = await manualTarget();
    let run: JobstormRun;
    try {
      t.clock.schedule(1500, () => stop.abort());
      run = await t.driver.run(
        runJobstorm({ scenario: long, target: t.target, clock: t.clock, signal: stop.signal }),
      );
    } finally {
      await t.emulator.close();
    }
    // Stopped when the signal came, not after the scenario's 60 s.
    expect(run.summary.run.durationMs).toBe(1500);
    expect(run.outcome.interrupted).toBe(true);
    expect(run.summary.verdict.status).toBe('interrupted');
    expect(run.exitCode).toBe(ExitCode.Interrupted);
  });

  it('refuses a bad scenario, thresholds or target with every problem, before anything is sent', async () => {
    const bad = { ...SCENARIO, phases: [{ duration: 'soon', rate: 4 }] } as unknown as ScenarioInput;
    await expect(runJobstorm({ scenario: bad })).rejects.toBeInstanceOf(ConfigError);
    await expect(
      runJobstorm({ scenario: SCENARIO, thresholds: ['p99(nothing) < 1s'] }),
    ).rejects.toBeInstanceOf(ConfigError);
    const remote = runJobstorm({ scenario: SCENARIO, target: 'http://127.0.0.1:9/v2/x' });
    await expect(remote).rejects.toThrow(/a key is needed for a remote target/);
    await expect(runJobstorm({})).rejects.toThrow(/exactly one of scenario and scenarioFile/);
  });
});
