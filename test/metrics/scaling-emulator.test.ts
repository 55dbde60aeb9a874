import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { runJobstorm } from '../../src/index.js';
import type { ScenarioInput } from '../../src/scenario/index.js';
import { READ_COST_MS } from '../helpers/cli-on-clock.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { MANUAL_EPOCH_MS } from '../helpers/manual-target.js';

/*
 * The scaling figures against the embedded emulator, whose own settings say what they must be:
 * one warm worker, a burst of JOBS jobs of JOB_MS each in one second, so the autoscaler starts one
 * worker per queued job; each is ready COLD_MS later, runs its job, idles IDLE_MS and stops. The
 * flow then sleeps so /health is sampled past every scale-down. Samples come about once a second,
 * so each time read from them is late by up to SAMPLE_MS; the tolerances below say so. The run and
 * the emulator share a manual clock (issue 46): the emulator's timers fire on time, on any machine.
 */
const COLD_MS = 1500;
const JOB_MS = 2000;
const IDLE_MS = 2000;
const JOBS = 6;
const SAMPLE_MS = 1000;
/** Time the run's own clock reads cost between samples (ManualClock's read cost): a few ms at most. */
const SLACK_MS = 20;
const PRICE = 0.0002;

const SCENARIO: ScenarioInput = {
  name: 'scaling-figures',
  emulator: {
    workersMin: 1,
    workersMax: JOBS,
    coldStart: `${String(COLD_MS)}ms`,
    idleTimeout: `${String(IDLE_MS)}ms`,
  },
  scaling: { pricePerWorkerSecond: PRICE, currency: 'USD' },
  phases: [{ duration: '1s', rate: JOBS }],
  flows: [
    {
      name: 'burst',
      steps: [
        { run: { input: { sleep_ms: JOB_MS } } },
        { poll: { until: 'final', interval: '100ms', timeout: '15s' } },
        { sleep: '6s' },
      ],
    },
  ],
};

describe('scaling figures against the embedded emulator', () => {
  it('lag, drain, cold start and worker-seconds agree with its cold start and idle timeout', async () => {
    const clock = new ManualClock(0, MANUAL_EPOCH_MS, READ_COST_MS);
    const { summary } = await new ClockDriver(clock).run(runJobstorm({ scenario: SCENARIO, clock }));
    const f = summary.scaling?.figures;
    if (!f) throw new Error('no scaling figures');
    expect(summary.jobs.byState.COMPLETED).toBe(JOBS);

    // Lag: a worker started when the queue grew is ready COLD_MS later; both ends are seen by samples.
    expect(f.scaleUpLagMs.length).toBeGreaterThan(0);
    for (const lag of f.scaleUpLagMs) expect(lag).toBeLessThanOrEqual(COLD_MS + SAMPLE_MS + SLACK_MS);
    expect(Math.max(...f.scaleUpLagMs)).toBeGreaterThanOrEqual(COLD_MS - SAMPLE_MS);

    // Drain: the last job's worker started at its arrival: ready COLD_MS later, done JOB_MS after.
    expect(f.drainMs).not.toBeNull();
    expect(f.drainMs ?? 0).toBeGreaterThanOrEqual(COLD_MS + JOB_MS - SLACK_MS);
    expect(f.drainMs ?? 0).toBeLessThanOrEqual(COLD_MS + JOB_MS + SAMPLE_MS + SLACK_MS);

    // Every job but the warm worker's waited out a cold start: 5 of 6, weighed by /health samples a
    // second apart; a figure blind to cold starts reads near 0.
    expect(f.coldStartShare ?? 0).toBeGreaterThan(0.75);
    expect(f.peakWorkers).toBe(JOBS);

    // The warm worker over the sampled span, plus each started worker from its start to its stop;
    // each start and each stop is seen up to one sample late.
    const t0 = summary.scaling?.samples.atMs[0] ?? 0;
    const spanS = ((summary.scaling?.samples.atMs.at(-1) ?? 0) - t0) / 1000;
    const started = JOBS - 1;
    const expected = spanS + (started * (COLD_MS + JOB_MS + IDLE_MS)) / 1000;
    const tolerance = (started * (SAMPLE_MS + SLACK_MS)) / 1000;
    expect(f.workerSeconds ?? 0).toBeGreaterThan(expected - tolerance);
    expect(f.workerSeconds ?? 0).toBeLessThan(expected + tolerance);
    // All scaled back down to the one warm worker before sampling ended.
    expect(summary.scaling?.samples.idle.at(-1)).toBe(1);

    expect(f.cost).toBeCloseTo((f.workerSeconds ?? 0) * PRICE, 12);
    expect(f.costPer1kJobs).toBeCloseTo(((f.cost ?? 0) / JOBS) * 1000, 12);
  });
});
