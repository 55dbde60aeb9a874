import type { JobstormRun, RunJobstormOptions } from '../library/library-options.js';
import { reachTargetOf, runJobstorm } from '../library/run-jobstorm.js';
import { scenarioOf } from '../library/scenario-source.js';
import type { Target } from '../runner/run-options.js';

/*
 * A trial beside a background load (issue 50: bugs that need load show up under it): the load's
 * scenario runs against the trial's own target from before the trial's first job until its last
 * answer, then is stopped. Only the trial is judged: the load's jobs share the endpoint, so the
 * trial's target says so (checks that need the queue to be ours alone do not judge), and the
 * trial's purges reach the load's jobs, which the load's own run could not explain.
 */

/**
 * Runs the trial `trial` describes (its runJobstorm options, the target among them) with the load
 * scenario file `load` beside it, both on the one target those options reach; resolves with the
 * trial's run and how many calls the load made meanwhile.
 */
export async function besideLoad(
  trial: RunJobstormOptions,
  load: string,
): Promise<{ run: JobstormRun; loadCalls: number }> {
  const reached = await reachTargetOf(trial, await scenarioOf(trial));
  const target: Target = { ...reached.target, ownsEndpoint: false, exclusiveEndpoint: false };
  const stop = new AbortController();
  let loadCalls = 0;
  const loading = runJobstorm({
    scenarioFile: load,
    target,
    checks: false,
    preflight: false,
    signal: trial.signal ? AbortSignal.any([stop.signal, trial.signal]) : stop.signal,
    ...(trial.clock ? { clock: trial.clock } : {}),
    onRecord: (r) => {
      if (r.type === 'exchange') loadCalls++;
    },
  });
  try {
    const run = await runJobstorm({ ...trial, target });
    return { run, loadCalls };
  } finally {
    stop.abort();
    // The load's own verdict is not the fuzz's; a load that failed to run shows as no calls.
    await loading.catch(() => undefined);
    await reached.close();
  }
}
