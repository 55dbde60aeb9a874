/**
 * Whose formulas a run's ITL and TPOT follow (docs/llm.md; the formulas are in
 * metrics/token-timing.ts), and the per-request objectives goodput counts against: plain data, so
 * the scenario that sets them and the metrics that apply them share one spelling.
 */
export const TOKEN_DEFINITIONS = ['jobstorm', 'vllm', 'aiperf', 'guidellm'] as const;
export type TokenDefinition = (typeof TOKEN_DEFINITIONS)[number];

/** Per-request objectives (ms); an answer is good when it met every one set. */
export interface TokenObjectives {
  ttftMs?: number;
  tpotMs?: number;
  /** Every inter-token latency of the answer (under the run's definition) at most this. */
  itlMs?: number;
  e2eMs?: number;
}

/** The scenario's `llm` settings. */
export interface TokenSettings {
  definition: TokenDefinition;
  objectives: TokenObjectives;
}
