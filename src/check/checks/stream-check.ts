import { LIMITS } from '../../../contracts/queue/limits.js';
import { isFinalStatus } from '../../core/job-status.js';
import type { ExchangeRecord, JobstormRecord } from '../../core/record.js';
import type { Check, CheckContext } from '../check.js';
import type { JobState } from '../job-book.js';
import { entriesOf } from '../job-timeline.js';
import { jsonSize } from '../untrim.js';
import { firstTime } from '../fired-rules.js';

interface Chunk {
  output?: unknown;
  metrics?: { stream_index?: unknown };
}

/** A chunk's identity when it carries one (the spec's `metrics.stream_index`, or an index in its output). */
function chunkKey(c: Chunk): string | undefined {
  const idx = c.metrics?.stream_index;
  if (typeof idx === 'number') return `m${String(idx)}`;
  // A primitive output has neither property: reading one gives undefined, as for null.
  const out = c.output as { index?: unknown; chunk?: unknown } | null | undefined;
  if (typeof out?.index === 'number') return `i${String(out.index)}`;
  if (typeof out?.chunk === 'number') return `c${String(out.chunk)}`;
  return undefined;
}

/** `stream.chunk-too-large`: every chunk of an answer that has any. */
function judgeSizes(r: ExchangeRecord, chunks: readonly Chunk[], ctx: CheckContext): void {
  let size: number | undefined;
  for (const c of chunks) {
    const n = jsonSize(c.output);
    if (n >= LIMITS.streamChunk.surelyRejected) {
      size = n;
      break;
    }
  }
  const v = ctx.judge('stream.chunk-too-large', size !== undefined);
  if (v) ctx.emit(v, { record: r, message: `a streamed chunk of ${String(size)} bytes; the limit is 1 MB` });
}

/** `stream.after-final`: once an answer said the job was final with nothing left, no more chunks. */
function judgeAfterFinal(r: ExchangeRecord, job: JobState, count: number, ctx: CheckContext): void {
  if (!job.streamDrained) return;
  const v = ctx.judge('stream.after-final', count > 0 && firstTime(job, 'stream.after-final'));
  if (v) {
    ctx.emit(v, {
      record: r,
      jobId: job.id,
      timeline: entriesOf(job.timeline),
      message: `${String(count)} chunks of job ${job.id} came after a stream response had said it was final and drained`,
    });
  }
}

/** `stream.duplicate-chunk`: each chunk that carries an identity, against those seen before. */
function judgeDuplicates(
  r: ExchangeRecord,
  job: JobState,
  chunks: readonly Chunk[],
  ctx: CheckContext,
): void {
  const keys = (job.chunkKeys ??= new Set());
  for (const c of chunks) {
    const key = chunkKey(c);
    if (key === undefined) continue;
    const again = keys.has(key);
    const v = ctx.judge('stream.duplicate-chunk', again && firstTime(job, 'stream.duplicate-chunk'));
    if (v) {
      ctx.emit(v, {
        record: r,
        jobId: job.id,
        message: `chunk ${key.slice(1)} of job ${job.id} was delivered twice`,
      });
    }
    if (again) break;
    keys.add(key);
  }
}

/**
 * `stream.*`: chunks of at most 1 MB, each delivered once, none after a stream response has
 * already said the job was final with nothing left.
 */
export const streamCheck: Check = {
  name: 'stream',
  ids: ['stream.chunk-too-large', 'stream.after-final', 'stream.duplicate-chunk'],
  add(r: JobstormRecord, ctx) {
    if (r.type !== 'exchange' || r.op !== 'stream' || r.status !== 200 || r.body === undefined) return;
    const envelope = Array.isArray(r.body) ? undefined : (r.body as { status?: unknown; stream?: unknown });
    const chunks = (
      Array.isArray(r.body) ? r.body : Array.isArray(envelope?.stream) ? envelope.stream : []
    ) as Chunk[];
    const id = ctx.job.jobId;
    const job = id === undefined ? undefined : ctx.jobs.get(id);
    if (chunks.length > 0) judgeSizes(r, chunks, ctx);
    if (!job) return;
    judgeAfterFinal(r, job, chunks.length, ctx);
    // A chunk after the drained answer can only repeat one: it is stream.after-final's finding,
    // and one defect is reported under one id.
    if (!job.streamDrained) judgeDuplicates(r, job, chunks, ctx);
    // Each call returns every chunk not yet delivered, so an envelope that says final has handed
    // over the last of them; the bare array carries no status, so there an empty answer after a
    // final status is the sign.
    if (envelope ? isFinalStatus(envelope.status) : chunks.length === 0 && isFinalStatus(job.last))
      job.streamDrained = true;
  },
};
