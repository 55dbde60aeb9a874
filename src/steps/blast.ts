import { z } from 'zod';
import { blast as autocannon } from '../blast/blast.js';
import { PositiveDurationSchema, durationText } from '../scenario/field-schemas.js';
import type { StepContext, StepRunner } from './iteration-state.js';
import { defineStep } from './step-kind.js';

/** autocannon saturating one operation for a while. */
export interface BlastStep {
  readonly kind: 'blast';
  readonly op: 'health' | 'status' | 'run';
  readonly durationMs: number;
  readonly rate?: number;
  readonly connections: number;
}

const BlastSchema = z
  .strictObject({
    op: z
      .enum(['health', 'status', 'run'])
      .describe(
        "The one operation to saturate: /health, /status of the flow's job, or /run with an empty input.",
      ),
    duration: PositiveDurationSchema.describe(durationText('How long to blast.', '30s')),
    rate: z
      .number()
      .positive()
      .optional()
      .describe('Requests per second over all connections; absent: flat out.'),
    connections: z.number().int().min(1).max(1024).default(16).describe('Connections autocannon keeps open.'),
  })
  .describe(
    'Saturate one operation with autocannon (rate-limit probes, raw throughput); every answer is a record like any other.',
  )
  .transform((b): BlastStep => ({
    kind: 'blast',
    op: b.op,
    durationMs: b.duration,
    connections: b.connections,
    rate: b.rate,
  }));

const EMPTY_SUBMISSION = JSON.stringify({ input: {} });

/**
 * A `blast` step: autocannon saturates one operation, flat out or at a fixed rate, and every answer
 * becomes a record like the client's, so checks (429 behaviour above all) and metrics see it.
 */
async function saturate(
  step: BlastStep,
  ctx: StepContext,
  label: { flow: string; step: string; jobId?: string },
): Promise<void> {
  const path =
    step.op === 'health'
      ? '/health'
      : step.op === 'run'
        ? '/run'
        : `/status/${encodeURIComponent(label.jobId ?? '')}`;
  const headers: Record<string, string> =
    ctx.blastTarget.authorization === '' ? {} : { authorization: ctx.blastTarget.authorization };
  if (step.op === 'run') headers['content-type'] = 'application/json';
  await autocannon({
    url: ctx.blastTarget.baseUrl,
    op: step.op,
    method: step.op === 'run' ? 'POST' : 'GET',
    path,
    headers,
    ...(step.op === 'run' ? { body: EMPTY_SUBMISSION } : {}),
    connections: step.connections,
    durationMs: step.durationMs,
    ...(step.rate === undefined ? {} : { rate: step.rate }),
    onRecord: (r) => ctx.emit(ctx.shard === undefined ? r : { ...r, shard: ctx.shard }),
    clock: ctx.clock,
    nextSeq: () => ctx.nextSeq(),
    flow: label.flow,
    step: label.step,
    // Each /run of a blast makes a job of its own; only /status is about the flow's job.
    ...(step.op === 'status' && label.jobId !== undefined ? { jobId: label.jobId } : {}),
    req: {
      auth:
        ctx.blastTarget.authorization === ''
          ? 'none'
          : ctx.blastTarget.authorization.startsWith('Bearer ')
            ? 'bearer'
            : 'bare',
    },
    signal: ctx.stop,
  });
}

/** autocannon saturating one operation; its answers are records like any other. */
const runBlast: StepRunner<BlastStep> = async (step, it) => {
  if (step.op === 'status' && it.jobId === undefined) return false;
  await saturate(step, it.ctx, {
    flow: it.flow.name,
    step: `${String(it.stepIndex)}:blast`,
    jobId: it.jobId,
  });
  it.worked();
  return true;
};

export const blast = defineStep({
  name: 'blast',
  example: { op: 'health', duration: '1s' },
  payload: () => BlastSchema,
  run: runBlast,
});
