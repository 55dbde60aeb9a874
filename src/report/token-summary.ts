import type { TokenData, TokenGroupData } from '../metrics/llm-stats.js';
import { percentilesOfEncoded } from './percentiles.js';
import type { TimingSummary, TokenGroupSummary, TokensSummary } from './summary.js';

function timing(encoded: string): TimingSummary {
  return { percentiles: percentilesOfEncoded(encoded), histogram: encoded };
}

function groupSummary(g: TokenGroupData, seconds: number): TokenGroupSummary {
  const s: TokenGroupSummary = {
    path: g.path,
    counted: g.counted,
    answers: g.answers,
    outputTokens: g.outputTokens,
    throughput: seconds > 0 ? g.outputTokens / seconds : null,
    ttft: timing(g.ttft),
    itl: timing(g.itl),
    tpot: timing(g.tpot),
    e2e: timing(g.e2e),
    perSecond: timing(g.perSecond),
  };
  if (g.queue !== undefined) s.queue = timing(g.queue);
  if (g.toFirstAfterQueue !== undefined) s.toFirstAfterQueue = timing(g.toFirstAfterQueue);
  if (g.queueCold !== undefined) s.queueCold = timing(g.queueCold);
  if (g.queueWarm !== undefined) s.queueWarm = timing(g.queueWarm);
  return s;
}

/** `measuredMs`: the run's measured time, which every rate divides by. */
export function tokensSummary(d: TokenData, measuredMs: number): TokensSummary {
  const seconds = measuredMs / 1000;
  return {
    definition: d.definition,
    objectives: { ...d.objectives },
    groups: d.groups.map((g) => groupSummary(g, seconds)),
    goodput: {
      judged: d.judged,
      good: d.good,
      share: d.judged > 0 ? d.good / d.judged : null,
      perSecond: seconds > 0 ? d.good / seconds : null,
    },
  };
}

/** Back to the metrics' form, for merging summaries (shards). */
export function tokenDataOf(s: TokensSummary): TokenData {
  return {
    definition: s.definition,
    objectives: { ...s.objectives },
    judged: s.goodput.judged,
    good: s.goodput.good,
    groups: s.groups.map((g) => {
      const d: TokenGroupData = {
        path: g.path,
        counted: g.counted,
        answers: g.answers,
        outputTokens: g.outputTokens,
        ttft: g.ttft.histogram,
        itl: g.itl.histogram,
        tpot: g.tpot.histogram,
        e2e: g.e2e.histogram,
        perSecond: g.perSecond.histogram,
      };
      if (g.queue !== undefined) d.queue = g.queue.histogram;
      if (g.toFirstAfterQueue !== undefined) d.toFirstAfterQueue = g.toFirstAfterQueue.histogram;
      if (g.queueCold !== undefined) d.queueCold = g.queueCold.histogram;
      if (g.queueWarm !== undefined) d.queueWarm = g.queueWarm.histogram;
      return d;
    }),
  };
}
