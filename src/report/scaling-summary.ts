import type { ScalingData } from '../metrics/scaling-data.js';
import { scalingFigures, type ScalingFigures } from '../metrics/scaling-figures.js';

/**
 * summary.json's `scaling`: the samples and waits (what a merge adds up) and the figures made of
 * them (what reports and thresholds read); the reports show them only when `asked` is above 0.
 */
export interface ScalingSummary extends ScalingData {
  figures: ScalingFigures;
}

export function scalingSummary(data: ScalingData, originMs: number, completed: number): ScalingSummary {
  return { ...data, figures: scalingFigures(data, { originMs, completed }) };
}

/** The mergeable part of a summary's `scaling`: the inverse of `scalingSummary`. */
export function scalingDataOf(s: ScalingSummary): ScalingData {
  return {
    asked: s.asked,
    samples: s.samples,
    delayUs: s.delayUs,
    lastArrivalMs: s.lastArrivalMs,
    lowPriorityQueued: s.lowPriorityQueued,
    pricePerWorkerSecond: s.pricePerWorkerSecond,
    currency: s.currency,
  };
}
