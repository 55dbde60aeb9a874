import { measuredMs } from '../report/measured-time.js';
import type { Summary } from '../report/summary.js';
import type { Threshold } from '../report/threshold.js';
import { thresholdHistogram } from '../report/threshold-evaluation.js';
import type { Untested } from './compare-data.js';
import { MIN_TAIL, samplerFor, valuesNeeded } from './samplers.js';
import { MAX_WINDOWS } from './windows.js';

/**
 * Why a row that both runs measured has no significance, and how long a run would have to be for
 * it to have one. The resampling itself (samplers.ts) only says "cannot"; this says why, in the
 * reader's terms, so an untested change is never mistaken for no change.
 */

/** Seconds per window of a run this long: the length the comparison cuts its windows to. */
function windowSeconds(seconds: number): number {
  return Math.max(1, Math.ceil(seconds / MAX_WINDOWS));
}

/** The measured length whose windows (at least two) hold `need` values at `perSecond`. */
function runMsFor(need: number, perSecond: number): number | null {
  if (perSecond <= 0) return null;
  const seconds = Math.ceil(need / perSecond);
  return Math.max(seconds, 2 * windowSeconds(seconds)) * 1000;
}

function percentileName(p: number): string {
  return p < 0 ? 'the mean' : `p${String(p)}`;
}

function tooFewValues(t: Threshold, percentile: number, b: Summary, c: Summary): Untested | undefined {
  const need = valuesNeeded(percentile);
  const counts = [b, c].map((s) => thresholdHistogram(s, t)?.count ?? 0);
  if (counts.every((n) => n >= need)) return undefined;
  const rates = [b, c].map((s, i) => {
    const seconds = measuredMs(s) / 1000;
    return seconds > 0 ? (counts[i] ?? 0) / seconds : 0;
  });
  return {
    reason: `too few values for ${percentileName(percentile)}: ${counts.join(' and ')}, where ${String(need)} put ${String(MIN_TAIL)} above it`,
    runMs: runMsFor(need, Math.min(...rates)),
  };
}

/** Per-second windows on one side and run-wide draws on the other cannot be set against each other. */
function tooFewWindows(b: Summary, c: Summary): Untested {
  const seconds = Math.min(measuredMs(b), measuredMs(c)) / 1000;
  return {
    reason: 'too few per-second windows in one run (two at least)',
    runMs: 2 * windowSeconds(seconds) * 1000,
  };
}

export function untestedReason(t: Threshold, b: Summary, c: Summary, jobNoise: number): Untested {
  const a = t.aggregation;
  if (a.kind === 'count') return { reason: 'an exact count, never resampled', runMs: null };
  if (a.kind === 'percentile' && (a.percentile === 100 || a.percentile === 0))
    return {
      reason: `a ${a.percentile === 100 ? 'maximum' : 'minimum'} is one value, never resampled`,
      runMs: null,
    };
  if (a.kind === 'percentile') {
    const few = tooFewValues(t, a.percentile, b, c);
    if (few) return few;
  }
  const sb = samplerFor(b, t, jobNoise);
  const sc = samplerFor(c, t, jobNoise);
  if (sb && sc && sb.method !== sc.method) return tooFewWindows(b, c);
  return { reason: 'not resampled for this metric', runMs: null };
}
