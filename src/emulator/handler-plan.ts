import { LIMITS } from '../../contracts/queue/limits.js';
import { drawDuration, type HandlerProfile } from './profile.js';
import type { SeededRandom } from '../core/seeded-random.js';
import { llmDurationMs, planLlmRun, type LlmRun } from './llm-run.js';
import type { LlmSettings } from './llm-settings.js';

/*
 * The simulated handler. It reads these `input` keys, exactly so named (users and tests rely on
 * them): sleep_ms, fail, stream, chunk_bytes, output_bytes. Without them the endpoint's profile
 * decides. A key of the wrong type fails the job, as a real handler's input validation would.
 * A profile with `llm` runs a job that sets none of sleep_ms, a numeric stream, chunk_bytes or
 * output_bytes as a language model would (llm-run.ts): vLLM's input keys then apply.
 */

/** Largest generated output, so a typo cannot make the emulator allocate gigabytes. */
export const MAX_GENERATED_BYTES = 64 * 1024 * 1024;
/** Most chunks one job may stream. */
export const MAX_STREAM_CHUNKS = 100_000;

export interface HandlerPlan {
  durationMs: number;
  /** Set when the job will end FAILED, with this message as `error`. */
  error?: string;
  /** Output size in bytes for a generated string output; -1 to echo the input. */
  outputBytes: number;
  /** Set when the job runs as the model-like worker: its tokens and their times. */
  llm?: LlmRun;
}

/** `running`: jobs on the worker once this one starts, itself included (the model's batch). */
export function planJob(
  input: Record<string, unknown>,
  profile: HandlerProfile,
  rng: SeededRandom,
  running = 1,
): HandlerPlan {
  if (profile.llm !== undefined && !ownsBehaviour(input))
    return planLlmJob(input, profile, profile.llm, rng, running);
  const problem = inputProblem(input);
  const sleep = input.sleep_ms;
  const durationMs =
    typeof sleep === 'number' && problem === undefined
      ? Math.round(sleep)
      : drawDuration(profile.duration, rng);
  if (problem !== undefined) return { durationMs: 0, error: problem, outputBytes: -1 };
  const fail = input.fail;
  if (fail !== undefined && fail !== false && fail !== null) {
    return { durationMs, error: typeof fail === 'string' ? fail : JSON.stringify(fail), outputBytes: -1 };
  }
  const hasOwnBehaviour =
    input.sleep_ms !== undefined || input.stream !== undefined || input.output_bytes !== undefined;
  if (!hasOwnBehaviour && profile.failureRate > 0 && rng.next() < profile.failureRate) {
    return { durationMs, error: profile.failureMessage, outputBytes: -1 };
  }
  const outputBytes =
    typeof input.output_bytes === 'number' ? input.output_bytes : (profile.outputBytes ?? -1);
  return { durationMs, outputBytes };
}

/** Keys by which a job says what it does itself, whatever the profile. */
function ownsBehaviour(input: Record<string, unknown>): boolean {
  return (
    input.sleep_ms !== undefined ||
    typeof input.stream === 'number' ||
    input.chunk_bytes !== undefined ||
    input.output_bytes !== undefined
  );
}

function planLlmJob(
  input: Record<string, unknown>,
  profile: HandlerProfile,
  llm: LlmSettings,
  rng: SeededRandom,
  running: number,
): HandlerPlan {
  const run = planLlmRun(input, llm, running);
  if (typeof run === 'string') return { durationMs: 0, error: run, outputBytes: -1 };
  const durationMs = llmDurationMs(run);
  const fail = input.fail;
  // A failing job still streams its tokens first: it fails at its end, as a handler raising late.
  if (fail !== undefined && fail !== false && fail !== null) {
    return {
      durationMs,
      error: typeof fail === 'string' ? fail : JSON.stringify(fail),
      outputBytes: -1,
      llm: run,
    };
  }
  if (profile.failureRate > 0 && rng.next() < profile.failureRate) {
    return { durationMs, error: profile.failureMessage, outputBytes: -1, llm: run };
  }
  return { durationMs, outputBytes: -1, llm: run };
}

function inputProblem(input: Record<string, unknown>): string | undefined {
  const checks: [string, number][] = [
    ['sleep_ms', LIMITS.ttl.max],
    ['stream', MAX_STREAM_CHUNKS],
    ['chunk_bytes', MAX_GENERATED_BYTES],
    ['output_bytes', MAX_GENERATED_BYTES],
  ];
  for (const [key, max] of checks) {
    const v = input[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
      return `input.${key} must be an integer from 0 to ${String(max)}, got ${JSON.stringify(v)}`;
    }
  }
  if (streamChunks(input) * Math.max(0, chunkBytes(input)) > MAX_GENERATED_BYTES) {
    return `input.stream × input.chunk_bytes must be at most ${String(MAX_GENERATED_BYTES)} bytes in all`;
  }
  return undefined;
}

/** How many chunks the job streams (`input.stream`), 0 when it does not stream. */
export function streamChunks(input: Record<string, unknown>): number {
  const n = input.stream;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0;
}

/** Bytes of each chunk's output (`input.chunk_bytes`), -1 for the default small chunk object. */
export function chunkBytes(input: Record<string, unknown>): number {
  const n = input.chunk_bytes;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : -1;
}

/**
 * Largest string a chunk's output may hold so that the chunk `{"output":"..."}` stays within the
 * spec's 1 MB under either reading of MB (the band's lower, decimal edge), with room for the
 * envelope's punctuation.
 */
export const CHUNK_PIECE_MAX = LIMITS.streamChunk.surelyAccepted - 64;
