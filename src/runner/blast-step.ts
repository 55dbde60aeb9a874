import { blast } from '../blast/blast.js';
import type { BlastStep } from '../scenario/scenario.js';
import type { RunContext } from './run-context.js';

const EMPTY_SUBMISSION = JSON.stringify({ input: {} });

/**
 * A `blast` step: autocannon saturates one operation, flat out or at a fixed rate, and every answer
 * becomes a record like the client's, so checks (429 behaviour above all) and metrics see it.
 */
export async function runBlast(
  step: BlastStep,
  ctx: RunContext,
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
  await blast({
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
