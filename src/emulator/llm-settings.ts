import { z } from 'zod';

/*
 * A handler profile's `llm` setting: the simulated worker behaves like a language-model worker
 * (runpod-workers/worker-vllm) instead of sleeping for a drawn duration, so that jobstorm's token
 * timings have known truths to be compared with. The law, in milliseconds, for a job whose worker
 * runs `running` jobs (itself included) when it starts it:
 *
 *   prefill = promptTokens × prefillMsPerInputToken
 *   decode  = decodeMsPerToken × (1 + decodeSlowdownPerJob × (running − 1))
 *   token i (1-based) is generated at start + prefill + (i − 1) × decode
 *   the job ends with its last token: duration = prefill + (outputTokens − 1) × decode
 *
 * The first token comes out of the prefill, as in vLLM, so TTFT is exactly the prefill and every
 * later token one decode step: vLLM's TPOT formula, (e2e − TTFT) / (N − 1), gives `decode` back.
 * `decode` is fixed when the job starts, so a job's timings never depend on what starts later.
 */

const ms = z.number().nonnegative();

export const LlmSettingsSchema = z.strictObject({
  /** Time before the first output token, per prompt token (ms). */
  prefillMsPerInputToken: ms.default(0.5),
  /** Time per output token after the first, with the worker running this job alone (ms). */
  decodeMsPerToken: ms.default(20),
  /** Jobs one worker runs at once (the vLLM worker's MAX_CONCURRENCY); the queue holds the rest. */
  concurrency: z.number().int().min(1).max(1000).default(8),
  /** How much each other job running on the worker slows this one's decode (a fraction). */
  decodeSlowdownPerJob: ms.default(0.1),
  /**
   * Model load: a simulated worker the autoscaler starts stays `initializing` this much longer than
   * the endpoint's coldStartMs, so its first job waits for it in the queue (the vLLM worker builds
   * its engine before it asks for a job). Warm workers (workersMin) have loaded it already.
   */
  coldStartMs: z.number().int().min(0).max(600_000).default(0),
  /** First /stream chunk's token count (the worker's MIN_BATCH_SIZE). */
  minBatchSize: z.number().min(0).default(1),
  /** The chunk size is multiplied by this after every chunk (BATCH_SIZE_GROWTH_FACTOR). */
  batchSizeGrowthFactor: z.number().min(0).default(3),
  /** Largest chunk (the worker's DEFAULT_BATCH_SIZE). */
  maxBatchSize: z.number().min(1).default(50),
  /**
   * OpenAI stream events written in the worker's batches (RAW_OPENAI_OUTPUT, the default), or one
   * write per token (false): the worst case for a reader, and what a server proxying vLLM sends.
   */
  openaiBatching: z.boolean().default(true),
});
export type LlmSettings = z.output<typeof LlmSettingsSchema>;
