import type { Summary } from './summary.js';
import { evaluateThresholds } from './threshold-evaluation.js';
import { parseThresholds, type Threshold } from './threshold.js';
import { judgeVerdict } from './verdict.js';

/**
 * Re-evaluates a summary's own thresholds (as stored) plus extra ones, e.g. `jobstorm report
 * --threshold`. Stored expressions are parsed again, so a summary edited by hand cannot smuggle in a
 * verdict that its data does not support.
 */
export function withThresholds(
  summary: Summary,
  extra: readonly Threshold[],
  file = 'summary.json',
): Summary {
  const extraExpressions = new Set(extra.map((t) => t.expression));
  const stored = parseThresholds(
    summary.thresholds
      .filter((t) => !extraExpressions.has(t.expression))
      .map((t, i) => ({ expression: t.expression, where: `${file}: thresholds.${i}`, stored: true })),
  );
  const all = [...stored, ...extra];
  const judged = { ...summary, thresholds: evaluateThresholds(all, summary) };
  return { ...judged, verdict: judgeVerdict(judged) };
}

export function thresholdsFailed(summary: Summary): boolean {
  return summary.thresholds.some((t) => !t.ok);
}
