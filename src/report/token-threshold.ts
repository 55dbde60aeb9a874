import { LatencyHistogram } from '../metrics/histogram.js';
import { measuredMs } from './measured-time.js';
import type { Summary } from './summary.js';
import type { Threshold } from './threshold.js';

/**
 * Thresholds on streamed LLM answers (docs/llm.md): `p99(ttft)`, `p50(itl{path=stream})`,
 * `p95(tpot)`, `rps(outputTokens)`, `rate(goodput)`, `rps(goodput)`. A figure is read from the
 * groups its tags select; groups counted in tokens and groups counted in chunks are never merged
 * into one figure (the threshold is then not evaluated, and says to pick a path).
 */
export const TOKEN_TIMINGS = ['ttft', 'itl', 'tpot'] as const;
type TokenTiming = (typeof TOKEN_TIMINGS)[number];

/** A token figure, or why none can be judged. */
export type TokenReading = { value: LatencyHistogram | number | null; notEvaluated?: string };

function groupsOf(s: Summary, t: Threshold): NonNullable<Summary['tokens']>['groups'] | string {
  const tokens = s.tokens;
  if (tokens === undefined)
    return 'the run streamed no LLM answer (no /openai stream, no job read through /stream)';
  const groups = tokens.groups.filter((g) => t.tags.path === undefined || g.path === t.tags.path);
  if (new Set(groups.map((g) => g.counted)).size > 1)
    return `${t.metric} mixes answers counted in tokens with answers counted in chunks; pick one with {path=openai} or {path=stream}`;
  return groups;
}

/** The run-wide histogram of a token timing over the groups the threshold selects. */
export function tokenHistogram(s: Summary, t: Threshold): LatencyHistogram | string {
  const groups = groupsOf(s, t);
  if (typeof groups === 'string') return groups;
  const h = LatencyHistogram.create();
  for (const g of groups) h.merge(LatencyHistogram.decode(g[t.metric as TokenTiming].histogram));
  return h;
}

/** The value a token threshold judges: a histogram for a timing (the caller aggregates), else a number. */
export function tokenReading(s: Summary, t: Threshold): TokenReading {
  if ((TOKEN_TIMINGS as readonly string[]).includes(t.metric)) {
    const h = tokenHistogram(s, t);
    return typeof h === 'string' ? { value: null, notEvaluated: h } : { value: h };
  }
  const seconds = measuredMs(s) / 1000;
  if (t.metric === 'outputTokens') {
    const groups = groupsOf(s, t);
    if (typeof groups === 'string') return { value: null, notEvaluated: groups };
    const n = groups.reduce((sum, g) => sum + g.outputTokens, 0);
    return { value: t.aggregation.kind === 'rps' ? (seconds > 0 ? n / seconds : null) : n };
  }
  const gp = s.tokens?.goodput;
  if (gp === undefined || gp.judged === 0)
    return { value: null, notEvaluated: 'no streamed request was judged for goodput' };
  if (Object.values(s.tokens?.objectives ?? {}).every((v) => v === undefined))
    return {
      value: null,
      notEvaluated: 'goodput needs objectives: set llm.objectives (ttft, tpot, itl, e2e)',
    };
  if (t.aggregation.kind === 'count') return { value: gp.good };
  if (t.aggregation.kind === 'rps') return { value: seconds > 0 ? gp.good / seconds : null };
  return { value: gp.good / gp.judged };
}
