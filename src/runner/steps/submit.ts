import type { SubmissionBody } from '../../../contracts/queue/schemas.js';
import { sizedSubmission } from '../../client/sized-submission.js';
import { isFinalStatus } from '../../core/job-status.js';
import type { RequestFacts } from '../../core/record.js';
import type { RunStep, RunsyncStep } from '../../scenario/scenario.js';
import { ok, type IterationState, type StepRunner } from './iteration-state.js';

/** POST /run, or /runsync followed (as the official clients do) by /status-sync when the wait ran out. */
export const submit: StepRunner<RunStep | RunsyncStep> = async (step, it) => {
  const { client, clock } = it.ctx;
  const { body, facts } = submission(step, it);
  it.submittedAt = clock.now();
  const r =
    step.kind === 'run'
      ? await client.run(body, it.call('run', facts, false))
      : await client.runsync(
          body,
          step.waitMs === undefined ? {} : { wait: step.waitMs },
          it.call('runsync', facts, false),
        );
  it.intendedAt = clock.now();
  if (r.jobId === undefined || !ok(r.status)) return false;
  it.jobId = r.jobId;
  it.see(r);
  if (step.kind === 'runsync' && !isFinalStatus(it.status)) {
    const wait = step.waitMs === undefined ? undefined : { wait: step.waitMs };
    const s = await client.statusSync(r.jobId, wait ?? {}, it.call('status-sync', wait));
    it.intendedAt = clock.now();
    if (ok(s.status)) it.see(s);
  }
  return true;
};

function submission(
  step: RunStep | RunsyncStep,
  it: IterationState,
): { body: SubmissionBody | Buffer; facts?: RequestFacts } {
  const compiled = it.flow.inputs.get(step);
  const input = compiled
    ? compiled.render({
        iteration: it.n,
        flow: it.flow.name,
        random: () => it.ctx.random(),
        ...(it.row ? { row: it.row } : {}),
      })
    : { ...step.input };
  const body: SubmissionBody = { input };
  const webhook = step.webhook === true ? it.ctx.webhookUrl : step.webhook;
  if (webhook !== undefined) body.webhook = webhook;
  if (step.policy) body.policy = { ...step.policy };
  if (step.s3Config) body.s3Config = { ...step.s3Config };
  if (step.payloadBytes === undefined) return { body };
  // A sized body is sent as bytes, so the facts the client would read from it are handed over.
  const facts: RequestFacts = {};
  if (webhook !== undefined) facts.webhook = webhook;
  if (step.policy?.ttl !== undefined) facts.ttl = step.policy.ttl;
  if (step.policy?.executionTimeout !== undefined) facts.executionTimeout = step.policy.executionTimeout;
  if (step.policy?.lowPriority !== undefined) facts.lowPriority = step.policy.lowPriority;
  return { body: sizedSubmission(step.payloadBytes, body), facts };
}
