import type { Summary } from '../report/summary.js';
import type { CheckChange, CheckRow } from './compare-data.js';

/**
 * Check ids lined up: violations that are new or vanished, and coverage (how many observations a
 * check judged). A check that judged something in the baseline and nothing now is a regression of
 * the test, not of the service: the run no longer exercises what it used to.
 */
function violationsById(s: Summary): Map<string, number> {
  return new Map(s.violations.map((v) => [v.id, v.count]));
}

function coverageOf(s: Summary, id: string): number | null {
  // Empty: checks were off, or the summary predates coverage.
  if (Object.keys(s.coverage).length === 0) return null;
  return s.coverage[id] ?? 0;
}

function changeOf(bv: number, cv: number, bc: number | null, cc: number | null): CheckChange {
  if (bv === 0 && cv > 0) return 'new';
  if (bv > 0 && cv === 0) return cc === 0 ? 'not exercised now' : 'vanished';
  if (bv > 0) return 'still';
  if (bc !== null && cc !== null && bc > 0 && cc === 0) return 'not exercised now';
  if (bc === 0 && cc !== null && cc > 0) return 'newly exercised';
  // Judged nothing in a run that counted, and nothing (or unknown) in the other: not a pass.
  if ((bc ?? 0) === 0 && (cc ?? 0) === 0 && (bc === 0 || cc === 0)) return 'not exercised';
  return 'clean';
}

export function checkRows(b: Summary, c: Summary): CheckRow[] {
  const bv = violationsById(b);
  const cv = violationsById(c);
  const ids = [
    ...new Set([
      ...b.checks,
      ...c.checks,
      ...bv.keys(),
      ...cv.keys(),
      ...Object.keys(b.coverage),
      ...Object.keys(c.coverage),
    ]),
  ].sort();
  return ids.map((id) => {
    const baselineCoverage = coverageOf(b, id);
    const currentCoverage = coverageOf(c, id);
    const baselineViolations = bv.get(id) ?? 0;
    const currentViolations = cv.get(id) ?? 0;
    return {
      id,
      baselineViolations,
      currentViolations,
      baselineCoverage,
      currentCoverage,
      change: changeOf(baselineViolations, currentViolations, baselineCoverage, currentCoverage),
    };
  });
}

/** Checks the baseline ran (or judged) that the current run did not: the test lost reach. */
export function lostChecks(rows: readonly CheckRow[], b: Summary, c: Summary): string[] {
  const ranNow = new Set(c.checks);
  const ids = rows.filter((r) => r.change === 'not exercised now').map((r) => r.id);
  for (const id of b.checks)
    if (!ranNow.has(id) && !ids.includes(id) && !c.violations.some((v) => v.id === id)) ids.push(id);
  return ids.sort();
}
