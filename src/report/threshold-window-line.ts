import { resolutionOfMetric } from '../metrics/timing-resolution.js';
import { formatValue } from './format.js';
import type { ThresholdResult } from './summary.js';

/**
 * What every report says of a windowed threshold beside its value: the worst window and when, how
 * many windows failed, and the whole run's value, so "held over the run, failed in one window" reads
 * as such. Undefined for a whole-run threshold.
 */
export function windowLine(t: ThresholdResult): string | undefined {
  const w = t.window;
  if (!w) return undefined;
  const resolution = resolutionOfMetric(t.expression);
  const worst = w.worst
    ? `worst ${String(w.seconds)}s window from t+${String(w.worst.at)}s: ${formatValue(w.worst.value, t.unit, resolution)}`
    : `no ${String(w.seconds)}s window had data`;
  const failed = `${String(w.failed)} of ${String(w.judged)} window${w.judged === 1 ? '' : 's'} failed`;
  const whole = t.wholeRun
    ? `; whole run ${formatValue(t.wholeRun.value, t.unit, resolution)}${wholeRunNote(t)}`
    : '';
  return `${worst}; ${failed}${whole}`;
}

function wholeRunNote(t: ThresholdResult): string {
  if (!t.wholeRun?.ok) return '';
  return t.ok ? ' (holds)' : ' (holds over the whole run, fails in a window)';
}
