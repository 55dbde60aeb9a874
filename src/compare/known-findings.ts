import type { Summary, ViolationSummary } from '../report/summary.js';

/** A violation group with its findings all counted as new: the known count dropped. */
function asNew(v: ViolationSummary): ViolationSummary {
  const copy = { ...v };
  delete copy.known;
  return copy;
}

/**
 * A summary as `jobstorm compare` reads it: known findings like any other (issue 53). A run's known
 * deviations (`--known`) keep it from failing, but a comparison asks what changed, and a known
 * finding whose count jumps has changed: counts, gates and thresholds here see every finding.
 */
export function asAnyOther(s: Summary): Summary {
  if (!s.known && !s.violations.some((v) => v.known !== undefined)) return s;
  const copy = { ...s, violations: s.violations.map(asNew) };
  delete copy.known;
  return copy;
}
