import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { runJobstorm } from '../../src/index.js';
import type { ScenarioInput } from '../../src/scenario/index.js';
import type { TokenGroupSummary } from '../../src/report/summary.js';
import { READ_COST_MS } from '../helpers/cli-on-clock.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { MANUAL_EPOCH_MS } from '../helpers/manual-target.js';

/*
 * Issue 48 item 2: TTFT through the queue, decomposed per job into the cold start inside its
 * queue wait, the rest of the wait, and the time from leaving the queue to the first token.
 * Against the embedded emulator, whose settings say what each part must be: with no warm worker
 * every job's worker is started for it and is ready COLD_MS later (model load included), so
 * nearly all of each wait is cold; with warm workers none is. /health is sampled about once a
 * second and each sample speaks for half an interval either side, so a job's cold part is known
 * to within about SAMPLE_MS at each end; the tolerances say so. Manual clock: on time on any
 * machine.
 */
const COLD_MS = 3000;
const SAMPLE_MS = 1000;
const JOBS = 4;
/** The run's own clock reads between samples (ManualClock's read cost): a few ms at most. */
const SLACK_MS = 20;

function scenario(workersMin: number): ScenarioInput {
  return {
    name: 'token-cold-start',
    emulator: {
      workersMin,
      workersMax: JOBS,
      coldStart: `${String(COLD_MS)}ms`,
      profile: {
        name: 'llm',
        llm: { prefillMsPerInputToken: 0, decodeMsPerToken: 5, coldStartMs: 0, concurrency: 1 },
      },
    },
    phases: [{ duration: '1s', rate: JOBS }],
    flows: [
      {
        name: 'queued-chat',
        steps: [
          { run: { input: { prompt: 'hello there', sampling_params: { max_tokens: 20 }, stream: true } } },
          { stream: { interval: '50ms', timeout: '20s' } },
          // /health keeps being sampled past every job's end.
          { sleep: '2s' },
        ],
      },
    ],
  };
}

async function streamGroup(workersMin: number): Promise<TokenGroupSummary> {
  const clock = new ManualClock(0, MANUAL_EPOCH_MS, READ_COST_MS);
  const { summary } = await new ClockDriver(clock).run(
    runJobstorm({ scenario: scenario(workersMin), clock }),
  );
  expect(summary.jobs.byState.COMPLETED).toBe(JOBS);
  const g = summary.tokens?.groups.find((x) => x.path === 'stream');
  if (g === undefined) throw new Error('no /stream token group');
  return g;
}

describe("each job's cold start inside its queue wait, against the embedded emulator", () => {
  it('reads nearly the whole wait as cold start when every job waits for a worker to start', async () => {
    const g = await streamGroup(0);
    const queue = g.queue?.percentiles;
    const cold = g.queueCold?.percentiles;
    const warm = g.queueWarm?.percentiles;
    if (!queue || !cold || !warm) throw new Error('no queue split');
    expect(cold.count).toBe(JOBS);
    // Each job waited for a worker started after it arrived (or for an earlier arrival's, ready a
    // little sooner): about COLD_MS.
    expect(queue.min).toBeGreaterThanOrEqual(COLD_MS - SAMPLE_MS);
    expect(queue.max).toBeLessThanOrEqual(COLD_MS + SAMPLE_MS);
    // Workers were initializing for the whole of every wait: all of it is read as cold start but
    // for the half interval the last sample before a worker turned ready speaks for.
    expect(cold.min).toBeGreaterThanOrEqual(queue.min - SAMPLE_MS / 2 - SLACK_MS);
    expect(warm.max).toBeLessThanOrEqual(SAMPLE_MS / 2 + SLACK_MS);
    // The parts add up to the wait, job by job, so their means do too.
    expect(cold.mean + warm.mean).toBeCloseTo(queue.mean, 0);
  });

  it('reads no cold start when warm workers take every job at once', async () => {
    const g = await streamGroup(JOBS);
    const cold = g.queueCold?.percentiles;
    if (!cold) throw new Error('no queue split');
    expect(cold.count).toBe(JOBS);
    expect(cold.max).toBe(0);
    expect(g.queueWarm?.percentiles.max ?? Infinity).toBeLessThan(SAMPLE_MS);
  });
});
