import { LIMITS } from '../../contracts/queue/limits.js';
import { isFinalStatus } from '../core/job-status.js';
import type { FaultSet } from './faults.js';
import { CHUNK_PIECE_MAX, chunkBytes, streamChunks } from './handler-plan.js';
import type { Job } from './job.js';
import { generatedText, SHARE_MIN_BYTES, SharedJsonCache } from './json-payload.js';

/*
 * How a job looks on the wire (real-service.md "Shapes the real clients depend on"). Output is
 * generated here from the input and the plan rather than stored on the job, so retained jobs stay
 * small.
 */

export type JsonObject = Record<string, unknown>;

/** How much larger than the truth the timing-inflated fault reports delayTime. */
export const INFLATED_DELAY_MS = 3_600_000;

/** The /status, /runsync, /status-sync and webhook body. */
export function jobView(job: Job, faults: FaultSet, shownStatus = job.status): JsonObject {
  const view: JsonObject = { id: job.id, status: shownStatus };
  const started = job.startedAt >= 0;
  const asText = faults.wrongTypes;
  if (started) view.delayTime = timing(delayTime(job, faults), asText);
  if (started && job.finishedAt >= 0) view.executionTime = timing(job.finishedAt - job.startedAt, asText);
  if (job.externalWorker !== undefined) {
    // A real worker's result, or its latest progress update while the job runs (not final).
    if ((shownStatus === 'COMPLETED' || shownStatus === 'IN_PROGRESS') && job.output !== undefined)
      view.output = job.output;
  } else if (shownStatus === 'COMPLETED') view.output = jobOutput(job, faults);
  if (job.error !== undefined && isFinalStatus(shownStatus)) view.error = job.error;
  if (job.retries > 0) view.retries = job.retries;
  if (job.externalWorker !== undefined) view.workerId = job.externalWorker;
  else if (job.workerId > 0) view.workerId = workerName(job.workerId);
  return view;
}

function timing(ms: number, asText: boolean): number | string {
  return asText ? String(ms) : ms;
}

/** The job's delayTime as reported (the timing-inflated fault adds an hour); the job has started. */
export function delayTime(job: Job, faults: FaultSet): number {
  const ms = job.startedAt - job.queuedAt;
  return faults.timingInflated ? ms + INFLATED_DELAY_MS : ms;
}

export function workerName(id: number): string {
  return `emu-worker-${String(id)}`;
}

/**
 * A COMPLETED job's output: a generated string, every streamed chunk, or the input echoed. Large
 * generated strings are GeneratedText (see json-payload.ts), serialized without being built.
 */
export function jobOutput(job: Job, faults: FaultSet): unknown {
  if (job.outputBytes >= 0) return generatedText(job.outputBytes);
  const n = streamChunks(job.input);
  if (n > 0)
    return streamPieces(
      job,
      faults,
      0,
      Math.min(piecesPerChunk(job, faults) * n, piecesWithinBudget(job, faults)),
    );
  return echoedInput(job);
}

/** The job's input as an answer holds it: a large one is serialized once and shared. */
export function echoedInput(job: Job): unknown {
  return job.inputBytes >= SHARE_MIN_BYTES ? sharedInputs.get(job.input) : job.input;
}

/** Serializations of large inputs, shared by every answer that echoes them. */
export const sharedInputs = new SharedJsonCache();

/** Stream pieces the job has produced by now (a chunk over 1 MB is split into pieces). */
export function producedPieces(job: Job, faults: FaultSet, now: number): number {
  const n = streamChunks(job.input);
  if (n === 0 || job.startedAt < 0) return 0;
  let chunks: number;
  if (job.status === 'COMPLETED') chunks = n;
  else {
    const at = job.finishedAt >= 0 ? job.finishedAt : now;
    chunks = job.durationMs <= 0 ? n : Math.min(n, Math.floor(((at - job.startedAt) * n) / job.durationMs));
  }
  return chunks * piecesPerChunk(job, faults);
}

/** What the stream faults remember between /stream answers (held by the job's endpoint). */
export interface StreamFaultMemo {
  /** stream-duplicate: where the previous answer's new pieces began (they are sent again). */
  lastFrom: WeakMap<Job, number>;
  /** stream-after-final: jobs whose last answer said final with nothing left. */
  finalDrained: WeakSet<Job>;
}

/** The chunks not yet delivered; marks them delivered (SPEC "GET /stream": incremental results). */
export function takeStream(
  job: Job,
  faults: FaultSet,
  now: number,
  memo: StreamFaultMemo,
): { output: unknown }[] {
  if (job.externalWorker !== undefined) return takeExternalStream(job);
  const produced = producedPieces(job, faults, now);
  const from = job.streamDelivered;
  if (
    faults.streamAfterFinal &&
    from >= produced &&
    produced > 0 &&
    isFinalStatus(job.status) &&
    memo.finalDrained.has(job)
  ) {
    return streamPieces(job, faults, produced - 1, produced).map((output) => ({ output }));
  }
  let start = from;
  if (faults.streamDuplicate) {
    start = Math.min(from, memo.lastFrom.get(job) ?? from);
    memo.lastFrom.set(job, from);
  }
  // One answer holds at most ANSWER_BUDGET_BYTES of pieces; the rest come with the next calls.
  const end = Math.min(produced, start + piecesWithinBudget(job, faults));
  if (end > from) job.streamDelivered = end;
  if (faults.streamAfterFinal && isFinalStatus(job.status)) memo.finalDrained.add(job);
  if (end <= start) return [];
  return streamPieces(job, faults, start, end).map((output) => ({ output }));
}

/**
 * Bytes of generated pieces one answer may carry. A job's own stream is at most 64 MiB (its input is
 * checked), but the chunk-too-large fault pads every chunk past 1 MiB: 100,000 chunks would make one
 * answer of 100 GB. Memory stays bounded per answer whatever the job and faults.
 */
const ANSWER_BUDGET_BYTES = 80 * 1024 * 1024;

function piecesWithinBudget(job: Job, faults: FaultSet): number {
  const bytes = chunkBytes(job.input);
  const piece = faults.chunkTooLarge
    ? Math.max(bytes, LIMITS.streamChunk.surelyRejected)
    : bytes < 0
      ? 64
      : Math.max(64, Math.min(CHUNK_PIECE_MAX, bytes));
  return Math.max(1, Math.floor(ANSWER_BUDGET_BYTES / piece));
}

function piecesPerChunk(job: Job, faults: FaultSet): number {
  const bytes = chunkBytes(job.input);
  if (faults.chunkTooLarge || bytes <= CHUNK_PIECE_MAX) return 1;
  return Math.ceil(bytes / CHUNK_PIECE_MAX);
}

function streamPieces(job: Job, faults: FaultSet, from: number, to: number): unknown[] {
  const bytes = chunkBytes(job.input);
  const oversize = faults.chunkTooLarge;
  const per = piecesPerChunk(job, faults);
  const out: unknown[] = [];
  for (let p = from; p < to; p++) {
    const chunk = Math.floor(p / per);
    if (oversize) out.push(generatedText(Math.max(bytes, LIMITS.streamChunk.surelyRejected)));
    else if (bytes < 0) out.push({ chunk, text: `chunk ${String(chunk)}` });
    else {
      const piece = p % per;
      out.push(generatedText(Math.min(CHUNK_PIECE_MAX, bytes - piece * CHUNK_PIECE_MAX)));
    }
  }
  return out;
}

/** The chunks a real worker posted and /stream has not handed out yet. */
function takeExternalStream(job: Job): { output: unknown }[] {
  const chunks = job.chunks ?? [];
  const from = job.streamDelivered;
  job.streamDelivered = chunks.length;
  return chunks.slice(from).map((output) => ({ output }));
}
