import fc from 'fast-check';
import type { JobActionOp, JobTraceAction, TracedPolicy } from '../core/job-trace-job.js';

/*
 * What the fuzzer generates: jobs as rows of a job trace (docs/replay.md), each with its input
 * (how long the emulator's handler runs it, whether it fails, whether it streams), its policy and
 * the calls made for it at offsets after its submission. The choices come from the contract's
 * model (contracts/queue/states.ts): every move a client can make (status, stream, cancel, retry,
 * purge) at moments that race the server's own moves (a worker starting the job, the handler ending
 * it, executionTimeout, ttl). Each arbitrary lists its simplest choice first and its numbers
 * shrink towards zero, so fast-check's shrinking reaches the fewest calls at the plainest times.
 */

/** A job the fuzzer submits: one line of a job trace. */
export interface FuzzJob {
  /** Milliseconds after the trial's start. */
  readonly at: number;
  readonly op: 'run' | 'runsync';
  readonly input: Readonly<Record<string, unknown>>;
  readonly policy?: TracedPolicy;
  readonly webhook?: true;
  readonly actions?: readonly JobTraceAction[];
}

export interface JobPlanLimits {
  /** Most jobs in one trial (they run at once). */
  maxJobs: number;
  /** Most calls per job after its submission. */
  maxActions: number;
  /** Latest call but the late ones, ms after the job's submission. */
  horizonMs: number;
  /** Late calls come up to this long after the horizon. */
  lateMs: number;
  /** Latest submission, ms after the trial's start. */
  spreadMs: number;
}

export const DEFAULT_PLAN_LIMITS: JobPlanLimits = {
  maxJobs: 8,
  maxActions: 6,
  horizonMs: 12_000,
  lateMs: 60_000,
  spreadMs: 3_000,
};

/** Calls a job can get, simplest first (a status read changes nothing). */
export const FUZZ_ACTIONS: readonly JobActionOp[] = ['status', 'cancel', 'retry', 'stream', 'purge-queue'];

/** Times move in steps of 10 ms: finer races than that are the machine's, not the sequence's. */
const STEP_MS = 10;

const time = (maxMs: number): fc.Arbitrary<number> =>
  fc.integer({ min: 0, max: Math.floor(maxMs / STEP_MS) }).map((n) => n * STEP_MS);

/**
 * When a call is made: mostly while the job is young (its run, its stream, a race with its end),
 * else anywhere in the horizon, and now and then late: past ttl and its grace (15 s), a
 * webhook's wait (30 s) and /runsync's retention (60 s), so deadlines can be seen missed.
 */
function callTime(limits: JobPlanLimits): fc.Arbitrary<number> {
  return fc.oneof(
    { arbitrary: time(Math.min(2_000, limits.horizonMs)), weight: 4 },
    { arbitrary: time(limits.horizonMs), weight: 4 },
    { arbitrary: time(limits.lateMs).map((t) => limits.horizonMs + t), weight: 1 },
  );
}

/**
 * How long the handler runs: around the offsets the calls are drawn from and the shortest
 * executionTimeout and ttl (a 15 s job outlives both).
 */
const SLEEPS = [0, 50, 300, 1500, 6000, 15_000] as const;

const inputArb: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    sleep: fc.constantFrom(...SLEEPS),
    fail: fc.boolean(),
    stream: fc.constantFrom(0, 5),
  })
  .map(({ sleep, fail, stream }) => ({
    sleep_ms: sleep,
    ...(fail ? { fail: 'fuzz' } : {}),
    ...(stream > 0 ? { stream } : {}),
  }));

/** The policy's edges: the shortest ttl and executionTimeout the contract allows, and lowPriority. */
const policyArb: fc.Arbitrary<TracedPolicy | undefined> = fc.option(
  fc
    .record(
      {
        ttl: fc.constantFrom(10_000, 60_000),
        executionTimeout: fc.constantFrom(5_000, 60_000),
        lowPriority: fc.constant(true),
      },
      { requiredKeys: [] },
    )
    .map((p): TracedPolicy => p),
  { nil: undefined },
);

function actionsArb(limits: JobPlanLimits): fc.Arbitrary<JobTraceAction[]> {
  const action = fc.record({ at: callTime(limits), op: fc.constantFrom(...FUZZ_ACTIONS) });
  return fc
    .array(action, { maxLength: limits.maxActions })
    .map((actions) => [...actions].sort((a, b) => a.at - b.at));
}

function jobArb(limits: JobPlanLimits): fc.Arbitrary<FuzzJob> {
  return fc
    .record({
      at: time(limits.spreadMs),
      op: fc.constantFrom('run' as const, 'runsync' as const),
      input: inputArb,
      policy: policyArb,
      webhook: fc.boolean(),
      actions: actionsArb(limits),
    })
    .map(({ at, op, input, policy, webhook, actions }) => ({
      at,
      op,
      input,
      ...(policy === undefined || Object.keys(policy).length === 0 ? {} : { policy }),
      ...(webhook ? { webhook: true as const } : {}),
      ...(actions.length > 0 ? { actions } : {}),
    }));
}

/** A trial: up to `maxJobs` jobs, in submission order (a job trace's rows may not go back in time). */
export function trialArb(limits: JobPlanLimits = DEFAULT_PLAN_LIMITS): fc.Arbitrary<FuzzJob[]> {
  return fc
    .array(jobArb(limits), { minLength: 1, maxLength: limits.maxJobs })
    .map((jobs) => [...jobs].sort((a, b) => a.at - b.at));
}

/** How many calls a trial makes: its submissions and their calls. */
export function callsOf(jobs: readonly FuzzJob[]): number {
  return jobs.reduce((n, j) => n + 1 + (j.actions?.length ?? 0), 0);
}
