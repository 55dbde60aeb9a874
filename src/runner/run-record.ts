import { RECORD_VERSION, type RunRecord } from '../core/record.js';
import { resolveScaling } from '../core/scaling-expectation.js';
import type { RunOptions } from './run-options.js';

/**
 * The run record, built here once for a single-thread run (runner.ts) and for the combined record
 * of a `--workers` run (threaded-run.ts): two copies had drifted, and the threaded one dropped
 * `exclusiveEndpoint` and `strict`, so its checks judged another endpoint and `--strict` was lost
 * (issue 46). `shard` is this process's `--shard`; a threaded run's combined record has none.
 */
export function runRecord(
  o: Pick<RunOptions, 'runId' | 'scenario' | 'target'>,
  startedAtMs: number,
  shard: string | undefined,
): RunRecord {
  const run: RunRecord = {
    v: RECORD_VERSION,
    type: 'run',
    runId: o.runId,
    scenario: o.scenario.name,
    target: o.target.baseUrl,
    startedAtMs,
    ownsEndpoint: o.target.ownsEndpoint,
  };
  if (shard) run.shard = shard;
  if (o.target.requestsPerWorker !== undefined) run.requestsPerWorker = o.target.requestsPerWorker;
  if (o.target.clock === 'manual') run.targetClock = 'manual';
  const scaling = resolveScaling(o.target.scaling, o.scenario.scaling);
  if (scaling) run.scaling = scaling;
  if (o.target.exclusiveEndpoint !== undefined) run.exclusiveEndpoint = o.target.exclusiveEndpoint;
  if (o.scenario.target.adapt === false) run.strict = true;
  if (o.scenario.target.auth !== 'bearer') run.auth = o.scenario.target.auth;
  // In the records, so `jobstorm check` of them skips and accepts what the run did.
  const checks = o.scenario.checks;
  if (checks?.skip.length) run.skipChecks = checks.skip.map((x) => ({ ...x }));
  if (checks?.known)
    run.known = { file: checks.known.file, entries: checks.known.entries.map((e) => ({ ...e })) };
  return run;
}
