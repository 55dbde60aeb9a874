import type { Summary } from '../report/summary.js';
import type { Threshold } from '../report/threshold.js';
import { evaluateThresholds } from '../report/threshold-evaluation.js';
import type { Resampled } from './compare-data.js';
import { SeededRandom } from './random.js';
import { samplerFor } from './samplers.js';

export interface BootstrapSettings {
  /** Confidence level of the reported intervals, e.g. 0.95. */
  level: number;
  resamples: number;
  seed: number;
  /** Run-level shift assumed for job timings (log scale, one standard deviation), e.g. 0.05. */
  jobNoise: number;
}

export interface Measured {
  baseline: number | null;
  current: number | null;
  significance: Resampled | null;
}

/** FNV-1a, so each metric has a stream of its own and rows do not depend on each other's order. */
function hash(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function quantile(sorted: readonly number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i] ?? 0;
}

export function valueOf(s: Summary, t: Threshold): number | null {
  return evaluateThresholds([t], s)[0]?.value ?? null;
}

/**
 * The metric on both runs and, where both can be resampled the same way, the distribution of the
 * difference: each resample redraws both runs, so the interval holds the noise of both.
 */
export function measure(t: Threshold, baseline: Summary, current: Summary, o: BootstrapSettings): Measured {
  const b = valueOf(baseline, t);
  const c = valueOf(current, t);
  if (b === null || c === null) return { baseline: b, current: c, significance: null };
  const sb = samplerFor(baseline, t, o.jobNoise);
  const sc = samplerFor(current, t, o.jobNoise);
  if (!sb || !sc || sb.method !== sc.method) return { baseline: b, current: c, significance: null };
  const rng = new SeededRandom(hash(t.expression, o.seed));
  const diffs: number[] = [];
  for (let i = 0; i < o.resamples; i++) {
    const x = sb.draw(rng);
    const y = sc.draw(rng);
    if (x !== null && y !== null) diffs.push(y - x);
  }
  if (diffs.length === 0) return { baseline: b, current: c, significance: null };
  diffs.sort((x, y) => x - y);
  const below = diffs.filter((d) => d <= 0).length;
  const above = diffs.filter((d) => d >= 0).length;
  const p = Math.min(1, (2 * (Math.min(below, above) + 1)) / (diffs.length + 1));
  const tail = (1 - o.level) / 2;
  return {
    baseline: b,
    current: c,
    significance: {
      method: sb.method,
      ci: [quantile(diffs, tail), quantile(diffs, 1 - tail)],
      p,
      confidence: 1 - p,
    },
  };
}
