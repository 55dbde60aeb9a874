import { LIMITS } from '../../../contracts/queue/limits.js';
import { isFinalStatus } from '../../core/job-status.js';
import type { JobstormRecord } from '../../core/record.js';
import type { Check } from '../check.js';
import { jobIdOf } from '../job-id.js';
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
  const out = c.output as { index?: unknown; chunk?: unknown } | undefined;
  if (out && typeof out === 'object') {
    if (typeof out.index === 'number') return `i${String(out.index)}`;
    if (typeof out.chunk === 'number') return `c${String(out.chunk)}`;
  }
  return undefined;
}

/**
 * `stream.*`: chunks of at most 1 MB, each delivered once, none after a stream response has
 * already said the job was final with nothing left.
 */
export const streamCheck: Check = {
  name: 'stream',
  add(r: JobstormRecord, ctx) {
    if (r.type !== 'exchange' || r.op !== 'stream' || r.status !== 200 || r.body === undefined) return;
    const envelope = Array.isArray(r.body) ? undefined : (r.body as { status?: unknown; stream?: unknown });
    const chunks = (
      Array.isArray(r.body) ? r.body : Array.isArray(envelope?.stream) ? envelope.stream : []
    ) as Chunk[];
    const id = jobIdOf(r);
    const job = id === undefined ? undefined : ctx.jobs.get(id);
    if (chunks.length > 0) ctx.judged('stream.chunk-too-large');
    for (const c of chunks) {
      const size = jsonSize(c.output);
      if (size >= LIMITS.streamChunk.surelyRejected) {
        ctx.emit({
          id: 'stream.chunk-too-large',
          record: r,
          message: `a streamed chunk of ${String(size)} bytes; the limit is 1 MB`,
        });
        break;
      }
    }
    if (!job) return;
    if (job.streamDrained) ctx.judged('stream.after-final');
    if (chunks.length > 0 && job.streamDrained && firstTime(job, 'stream.after-final')) {
      ctx.emit({
        id: 'stream.after-final',
        record: r,
        jobId: job.id,
        timeline: entriesOf(job.timeline),
        message: `${String(chunks.length)} chunks of job ${job.id} came after a stream response had said it was final and drained`,
      });
    }
    job.chunkKeys ??= new Set();
    for (const c of chunks) {
      const key = chunkKey(c);
      if (key === undefined) continue;
      ctx.judged('stream.duplicate-chunk');
      if (job.chunkKeys.has(key)) {
        if (firstTime(job, 'stream.duplicate-chunk')) {
          ctx.emit({
            id: 'stream.duplicate-chunk',
            record: r,
            jobId: job.id,
            message: `chunk ${key.slice(1)} of job ${job.id} was delivered twice`,
          });
        }
        break;
      }
      job.chunkKeys.add(key);
    }
    // Each call returns every chunk not yet delivered, so an envelope that says final has handed
    // over the last of them; the bare array carries no status, so there an empty answer after a
    // final status is the sign.
    if (envelope ? isFinalStatus(envelope.status) : chunks.length === 0 && isFinalStatus(job.last))
      job.streamDrained = true;
  },
};
