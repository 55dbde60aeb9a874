import { type CheckResult } from '../../src/check/checker.js';
import type { OpenApiRules } from '../../src/check/openapi-rules.js';
import { resolveTarget } from '../../src/cli/run/target.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { runScenario } from '../../src/runner/runner.js';
import type { WebhookAnswers } from '../../src/runner/webhook-receiver.js';
import { parseScenario } from '../../src/scenario/scenario-parser.js';
import { systemClock } from '../../src/core/clock.js';
import { FoldedChecker } from '../helpers/folded.js';

export interface ProofOptions {
  faults?: string[];
  webhookAnswers?: WebhookAnswers;
  openapi?: OpenApiRules;
}

export interface ProofResult extends CheckResult {
  records: JobstormRecord[];
  fired: Map<string, number>;
}

/**
 * Runs a scenario (YAML text) against the embedded emulator, as `jobstorm run` does, and checks
 * its records live. Returns the checker's result and the records, so a test can also replay them.
 */
export async function proofRun(yaml: string, o: ProofOptions = {}): Promise<ProofResult> {
  const scenario = parseScenario(yaml, 'proof.yaml', { env: {} });
  const { target, emulator } = await resolveTarget({ scenario, ...(o.faults ? { fault: o.faults } : {}) });
  const records: JobstormRecord[] = [];
  let checker: FoldedChecker | undefined;
  try {
    await runScenario({
      clock: systemClock,
      scenario,
      target,
      runId: 'proof',
      gracefulStopMs: 15_000,
      drainMs: 2000,
      ...(o.webhookAnswers ? { webhookAnswers: o.webhookAnswers } : {}),
      onRecord: (r) => {
        records.push(r);
        if (r.type === 'run') checker = new FoldedChecker(r, o.openapi ? { openapi: o.openapi } : {});
        else checker?.add(r);
      },
    });
  } finally {
    await emulator?.close();
  }
  if (!checker) throw new Error('no run record');
  const result = checker.finish();
  return { ...result, records, fired: new Map(result.violations.map((g) => [g.id, g.count])) };
}
