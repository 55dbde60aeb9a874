import { isFinalStatus } from '../core/job-status.js';
import { chunkBytes, streamChunks } from './handler-plan.js';
import type { Job } from './job.js';
import { chunkEnds, type LlmRun } from './llm-run.js';
import { generatedText, SHARE_MIN_BYTES, SharedJsonCache } from './json-payload.js';
import { llmChunks, llmChunksReady } from './llm-chunks.js';
import type { ChunkCut, EmulatorPolicy } from './policy/policy.js';

/*
 * How a job looks on the wire (real-service.md "Shapes the real clients depend on"). Output is
 * generated here from the input and the plan rather than stored on the job, so retained jobs stay
 * small.
 */

export type JsonObject = Record<string, unknown>;

/** The /status, /runsync, /status-sync and webhook body. */
export function jobView(job: Job, policy: EmulatorPolicy, shownStatus = job.status): JsonObject {
  const view: JsonObject = { id: job.id, status: shownStatus };
  const started = job.startedAt >= 0;
  if (started) view.delayTime = policy.timingField(policy.delayTime(job));
  if (started && job.finishedAt >= 0) view.executionTime = policy.timingField(job.finishedAt - job.startedAt);
  if (job.externalWorker !== undefined) {
    // A real worker's result, or its latest progress update while the job runs (not final).
    if ((shownStatus === 'COMPLETED' || shownStatus === 'IN_PROGRESS') && job.output !== undefined)
      view.output = job.output;
  } else if (shownStatus === 'COMPLETED') view.output = jobOutput(job, policy);
  if (job.error !== undefined && isFinalStatus(shownStatus)) view.error = job.error;
  if (job.retries > 0) view.retries = job.retries;
  if (job.externalWorker !== undefined) view.workerId = job.externalWorker;
  else if (job.workerId > 0) view.workerId = workerName(job.workerId);
  return view;
}

export function workerName(id: number): string {
  return `emu-worker-${String(id)}`;
}

/**
 * A COMPLETED job's output: a generated string, every streamed chunk, or the input echoed. Large
 * generated strings are GeneratedText (see json-payload.ts), serialized without being built.
 */
export function jobOutput(job: Job, policy: EmulatorPolicy): unknown {
  // The vLLM worker's output is the list of what it yielded (RunPod aggregates a generator's chunks).
  if (job.llm !== undefined) return llmChunks(job.llm, 0, Infinity);
  if (job.outputBytes >= 0) return generatedText(job.outputBytes);
  const n = streamChunks(job.input);
  if (n === 0) return echoedInput(job);
  const cut = policy.chunkCut();
  const bytes = chunkBytes(job.input);
  return streamPieces(cut, bytes, 0, Math.min(cut.perChunk(bytes) * n, piecesWithinBudget(cut, bytes)));
}

/** The job's input as an answer holds it: a large one is serialized once and shared. */
export function echoedInput(job: Job): unknown {
  return job.inputBytes >= SHARE_MIN_BYTES ? sharedInputs.get(job.input) : job.input;
}

/** Serializations of large inputs, shared by every answer that echoes them. */
export const sharedInputs = new SharedJsonCache();

/** Stream pieces the job has produced by now (a chunk over 1 MB is split into pieces). */
export function producedPieces(job: Job, cut: ChunkCut, now: number): number {
  const n = streamChunks(job.input);
  if (n === 0 || job.startedAt < 0) return 0;
  let chunks: number;
  if (job.status === 'COMPLETED') chunks = n;
  else {
    const at = job.finishedAt >= 0 ? job.finishedAt : now;
    chunks = job.durationMs <= 0 ? n : Math.min(n, Math.floor(((at - job.startedAt) * n) / job.durationMs));
  }
  return chunks * cut.perChunk(chunkBytes(job.input));
}

/** The chunks not yet delivered; marks them delivered (SPEC "GET /stream": incremental results). */
export function takeStream(job: Job, policy: EmulatorPolicy, now: number): { output: unknown }[] {
  if (job.externalWorker !== undefined) return takeExternalStream(job);
  if (job.llm !== undefined) return takeLlmStream(job, job.llm, policy, now);
  const cut = policy.chunkCut();
  const bytes = chunkBytes(job.input);
  const produced = producedPieces(job, cut, now);
  const from = job.streamDelivered;
  const start = policy.streamStart(job, from, produced);
  // One answer holds at most ANSWER_BUDGET_BYTES of pieces; the rest come with the next calls.
  const end = Math.min(produced, start + piecesWithinBudget(cut, bytes));
  if (end > from) job.streamDelivered = end;
  if (end <= start) return [];
  return streamPieces(cut, bytes, start, end).map((output) => ({ output }));
}

/**
 * Bytes of generated pieces one answer may carry. A job's own stream is at most 64 MiB (its input is
 * checked), but a policy may cut pieces past 1 MiB: 100,000 chunks would make one answer of 100 GB.
 * Memory stays bounded per answer whatever the job and policy.
 */
const ANSWER_BUDGET_BYTES = 80 * 1024 * 1024;

function piecesWithinBudget(cut: ChunkCut, bytes: number): number {
  return Math.max(1, Math.floor(ANSWER_BUDGET_BYTES / cut.pieceBytes(bytes)));
}

function streamPieces(cut: ChunkCut, bytes: number, from: number, to: number): unknown[] {
  const per = cut.perChunk(bytes);
  const out: unknown[] = [];
  for (let p = from; p < to; p++) out.push(cut.piece(bytes, p, per));
  return out;
}

/** The model-like worker's chunks that are out and that /stream has not handed out yet. */
function takeLlmStream(job: Job, run: LlmRun, policy: EmulatorPolicy, now: number): { output: unknown }[] {
  let ready = 0;
  if (job.status === 'COMPLETED') ready = chunkEnds(run).length;
  else if (job.startedAt >= 0)
    ready = llmChunksReady(run, (job.finishedAt >= 0 ? job.finishedAt : now) - job.startedAt);
  const from = job.streamDelivered;
  const start = policy.streamStart(job, from, ready);
  if (ready > from) job.streamDelivered = ready;
  if (ready <= start) return [];
  return llmChunks(run, start, ready).map((output) => ({ output }));
}

/** The chunks a real worker posted and /stream has not handed out yet. */
function takeExternalStream(job: Job): { output: unknown }[] {
  const chunks = job.chunks ?? [];
  const from = job.streamDelivered;
  job.streamDelivered = chunks.length;
  return chunks.slice(from).map((output) => ({ output }));
}
