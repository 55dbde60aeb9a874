import type { VerdictStatus } from '../report/verdict.js';
import type { CapacityReport } from './capacity-report.js';

/**
 * What a capacity search amounts to as a run's verdict, so its exit code comes from the one table
 * every run uses (session/run-exit.ts): a capacity found (or at least the highest rate tried) is a
 * pass; no passing rate is a failure; jobstorm's own limit before any rate passed says nothing
 * about the target (inconclusive).
 */
export function searchStatus(
  report: Pick<CapacityReport, 'targetUnreachable' | 'interrupted' | 'verdict' | 'generatorLimitedAt'>,
): VerdictStatus {
  if (report.targetUnreachable) return 'unreachable';
  if (report.interrupted) return 'interrupted';
  if (report.verdict === 'unknown' && report.generatorLimitedAt !== undefined) return 'inconclusive';
  return report.verdict === 'found' || report.verdict === 'at-least' ? 'passed' : 'failed';
}
