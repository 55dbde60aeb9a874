import { z } from 'zod';
import { isFinalStatus } from '../core/job-status.js';
import { PositiveDurationSchema, durationText } from '../scenario/field-schemas.js';
import { confirmJob, ok, routeMissing, type StepRunner } from './iteration-state.js';
import { defineStep } from './step-kind.js';

export interface StreamStep {
  readonly kind: 'stream';
  readonly timeoutMs: number;
  readonly intervalMs: number;
}

const Fields = z.strictObject({
  timeout: PositiveDurationSchema.prefault('1m').describe(durationText('Give up after this long.', '1m')),
  interval: PositiveDurationSchema.prefault('100ms').describe(
    durationText('Time between two /stream calls.', '100ms'),
  ),
});

const StreamSchema = Fields.nullable()
  .describe('GET /stream until the job is final; records time to first chunk and the gaps between chunks.')
  .transform((payload): StreamStep => {
    const s = payload ?? Fields.parse({});
    return { kind: 'stream', timeoutMs: s.timeout, intervalMs: s.interval };
  });

/** Reads /stream until the job is final and nothing is left (either response shape). */
const readStream: StepRunner<StreamStep> = async (step, it) => {
  if (it.jobId === undefined) return false;
  // A target without /stream: the flow's later steps still follow the job.
  if (routeMissing(it, 'stream')) return true;
  const { client, clock } = it.ctx;
  const deadline = clock.now() + step.timeoutMs;
  for (;;) {
    if (clock.now() >= deadline) return true;
    const r = await client.stream(it.jobId, it.call('stream'));
    // A 429 or a 5xx may pass: read again after the interval. Anything else ends the stream here.
    const transient = r.status === 429 || (r.status !== undefined && r.status >= 500);
    if (!ok(r.status) && !transient) {
      await confirmJob(it, 'stream', r.status);
      return it.ctx.routes.isMissing('stream');
    }
    if (transient) {
      if (!(await it.waitFor(step.intervalMs))) return false;
      continue;
    }
    const chunks = Array.isArray(r.body) ? r.body.length : chunkCount(r.body);
    if (!Array.isArray(r.body)) it.see(r);
    if (chunks === 0) {
      // The bare-array shape carries no status: ask /status whether the job is done.
      if (Array.isArray(r.body) && !isFinalStatus(it.status))
        it.see(await client.status(it.jobId, {}, it.call('stream-status')));
      if (isFinalStatus(it.status)) break;
    }
    if (!(await it.waitFor(step.intervalMs))) return false;
  }
  return true;
};

function chunkCount(body: unknown): number {
  const s = (body as { stream?: unknown } | undefined)?.stream;
  return Array.isArray(s) ? s.length : 0;
}

export const stream = defineStep({
  name: 'stream',
  example: null,
  payload: () => StreamSchema,
  needsJob: true,
  run: readStream,
});
