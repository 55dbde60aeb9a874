import { z } from 'zod';
import type { JobActionOp, JobTraceAction } from '../core/job-trace-job.js';
import { isRecord } from '../scenario/raw-value.js';
import type { KeyPath, PathIssue } from '../scenario/path-format.js';
import { ok, routeMissing, type IterationState, type StepRunner } from './iteration-state.js';
import { openai, type OpenAiStep } from './openai.js';
import { run } from './run.js';
import { runsync } from './runsync.js';
import { defineStep, type FlowFacts, type NestedStepSchema, type StepRules } from './step-kind.js';
import { submitJob, type RunStep, type RunsyncStep } from './submission.js';

/*
 * The job of a job trace's row, replayed (docs/replay.md): submitted the way the row says (/run,
 * /runsync or an OpenAI route, each as the step's own payload of that kind describes it), then each
 * of the row's actions sent at its offset from the submission, one call each: a status, a stream
 * read, a cancel, a retry, a purge. The replay repeats the recorded calls and adds none (no polling
 * to a final state, no follow-up /status after a 404), so a replayed run sends what the trace says.
 */

export interface TraceJobStep {
  readonly kind: 'traceJob';
  readonly run: RunStep;
  readonly runsync: RunsyncStep;
  /** Absent: a trace with OpenAI rows is refused at load, there being no body to send. */
  readonly openai?: OpenAiStep;
}

/** The submitting kinds' schemas take no nested steps. */
const noNesting: () => NestedStepSchema = () => {
  throw new Error('a traceJob submission nests no steps');
};

const TraceJobSchema = z
  .strictObject({
    run: run
      .payload(noNesting)
      .optional()
      .describe("How the trace's run rows are submitted (POST /run); default {}."),
    runsync: runsync
      .payload(noNesting)
      .optional()
      .describe("How the trace's runsync rows are submitted (POST /runsync); default {}."),
    openai: openai
      .payload(noNesting)
      .optional()
      .describe("How the trace's openai rows are sent (a trace with such rows needs it)."),
  })
  .nullable()
  .describe(
    "Replay the job of a job trace's row (a phase with replay: { format: jobstorm }): submit it as the row says, then make each of its calls at its time after the submission (docs/replay.md).",
  )
  .transform(
    (t): TraceJobStep => ({
      kind: 'traceJob',
      run: t?.run ?? { kind: 'run', input: {} },
      runsync: t?.runsync ?? { kind: 'runsync', input: {} },
      ...(t?.openai === undefined ? {} : { openai: t.openai }),
    }),
  );

/** Each submission's own rules at its key; the step itself needs a phase that replays a job trace. */
const rules: StepRules = (payload, at, flow) => {
  const issues: PathIssue[] = [];
  if (!flow.hasJobTrace)
    issues.push({
      path: at,
      message: 'traceJob replays the jobs of a job trace: add a phase with replay: { file, format: jobstorm }',
      atKey: true,
    });
  flow.hasJob = true;
  if (!isRecord(payload)) return issues;
  for (const kind of [run, runsync, openai]) issues.push(...submissionIssues(kind, payload, at, flow));
  return issues;
};

function submissionIssues(
  kind: typeof run | typeof runsync | typeof openai,
  payload: Record<string, unknown>,
  at: KeyPath,
  flow: FlowFacts,
): PathIssue[] {
  const own = payload[kind.name];
  return own === undefined ? [] : (kind.rules?.(own, [...at, kind.name], flow) ?? []);
}

/** Submits the row's job as its `op` says; false when nothing was submitted that calls could follow. */
async function submitRow(step: TraceJobStep, it: IterationState): Promise<boolean> {
  const op = it.trace?.op ?? 'run';
  if (op !== 'openai') return submitJob(step[op], it, it.trace);
  // Refused at load among the rows checked then (scenario/document-check.ts); a later one is not sent.
  if (step.openai === undefined) return false;
  it.submittedAt = it.ctx.clock.now();
  return openai.run(step.openai, it);
}

/** One call of the row's: the kind of call it names, once, answered or not. */
async function act(op: JobActionOp, it: IterationState): Promise<void> {
  const { client } = it.ctx;
  if (routeMissing(it, op)) return;
  if (op === 'purge-queue') {
    await client.purgeQueue(it.call('purge', undefined, false));
    return;
  }
  const jobId = it.jobId;
  if (jobId === undefined) return;
  const r =
    op === 'status'
      ? await client.status(jobId, {}, it.call('status'))
      : op === 'stream'
        ? await client.stream(jobId, it.call('stream'))
        : op === 'cancel'
          ? await client.cancel(jobId, it.call('cancel'))
          : await client.retry(jobId, it.call('retry'));
  // A bare-array /stream answer carries no status to take.
  if (ok(r.status) && !Array.isArray(r.body)) it.see(r);
}

/** Submits the row's job, then sends each of its calls when it is due after the submission. */
const replayJob: StepRunner<TraceJobStep> = async (step, it) => {
  const submitted = await submitRow(step, it);
  const submittedAt = it.submittedAt ?? it.ctx.clock.now();
  // A refused submission leaves no job to call, but its endpoint-wide calls (purges) still go.
  const actions: readonly JobTraceAction[] = it.trace?.actions ?? [];
  for (const action of actions) {
    if (!(await it.waitUntil(submittedAt + action.at))) return false;
    await act(action.op, it);
  }
  return submitted;
};

export const traceJob = defineStep({
  name: 'traceJob',
  example: {},
  payload: () => TraceJobSchema,
  rules,
  run: replayJob,
  children: (step) => [step.run, step.runsync, ...(step.openai === undefined ? [] : [step.openai])],
});
