import { RECORD_VERSION, type JobstormRecord, type RunRecord } from '../core/record.js';
import { runPath } from './record-path.js';
import type { CheckSettings } from './session-options.js';

/**
 * A throwaway run path (fold, checks, metrics: the session's own, built by the same `runPath`) that
 * the runner's warm-up records go through before time 0, so the JIT has compiled it before the
 * first arrival (issue 35): nothing here reaches the run's metrics, checks, exports or records.
 */
export function warmupPath(
  checks: false | CheckSettings | undefined,
  runId: string,
): (r: JobstormRecord) => void {
  const path = runPath({ checks });
  const run: RunRecord = {
    v: RECORD_VERSION,
    type: 'run',
    runId,
    scenario: 'warmup',
    target: 'http://127.0.0.1/v2/warmup',
    startedAtMs: 0,
    ownsEndpoint: false,
  };
  path.add(run);
  return path.add;
}
