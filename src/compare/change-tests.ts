import type { Summary } from '../report/summary.js';
import type { Threshold } from '../report/threshold.js';
import { measure, type BootstrapSettings, type Measured } from './bootstrap.js';
import type { Correction, CorrectionFamily, Resampled, Significance } from './compare-data.js';

/**
 * The one place a change's significance is decided (DESIGN rule 9): every metric the table or a
 * gate names is measured once, and its p-value corrected once with Holm's step-down over its
 * family. Rows, gates and the headline read these values; none corrects, or re-measures, itself.
 *
 * Two families, each held at the level: the metrics a gate names, which were chosen before the
 * runs (a pre-registered question), and the table's other rows, which are everything else looked
 * at (with ~60 rows, 5 % each would call three changes on two identical runs). A row that a gate
 * names belongs to the gates, so the row and its gate always say the same.
 */
export interface ChangeTestInput {
  /** The table's rows. */
  table: readonly Threshold[];
  /** The metrics of the `delta()` gates. */
  gates: readonly Threshold[];
}

export interface TestedChange {
  baseline: number | null;
  current: number | null;
  significance: Significance | null;
}

/** One name per metric however it was written (`p50( run )`, `avg` for `mean`, tags in any order). */
export function metricKey(t: Threshold): string {
  const a = t.aggregation;
  const how = a.kind === 'percentile' ? `p${String(a.percentile)}` : a.kind;
  const tags = Object.entries(t.tags)
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(',');
  return `${how}(${t.metric}{${tags}})`;
}

/**
 * Changes that ask no question, not counted: nothing on either side (the 5xx rate of an operation
 * that never failed, a row the table leaves out), or resamples that never move (0 of n 429s in
 * every window on both sides).
 */
function asksNothing(m: Measured): boolean {
  if (m.baseline === 0 && m.current === 0) return true;
  const ci = m.significance?.ci;
  return m.baseline === m.current && ci !== null && ci !== undefined && ci[0] === 0 && ci[1] === 0;
}

/**
 * Holm-adjusted p-values, in the order given: the i-th smallest p times the tests left, never
 * below the one before it (the step-down stops at the first change it keeps).
 */
export function holmAdjusted(ps: readonly number[]): number[] {
  const order = ps.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const out = new Array<number>(ps.length).fill(1);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (order.length - rank) * p));
    out[i] = running;
  });
  return out;
}

/** True when the corrected p-value of the change is at or under 1 − level. */
export function significantAt(s: Significance | null, level: number): boolean {
  return s !== null && s.corrected.p <= 1 - level;
}

export class ChangeTests {
  private readonly tested = new Map<string, TestedChange>();

  constructor(b: Summary, c: Summary, o: BootstrapSettings, input: ChangeTestInput) {
    const gated = new Set(input.gates.map(metricKey));
    const measured = new Map<string, Measured>();
    for (const t of [...input.table, ...input.gates]) {
      const key = metricKey(t);
      if (!measured.has(key)) measured.set(key, measure(t, b, c, o));
    }
    for (const family of ['gates', 'table'] as const) {
      const members = [...measured].filter(([key]) => gated.has(key) === (family === 'gates'));
      this.correct(family, members);
    }
  }

  /** The measured and corrected change of a metric given to the constructor. */
  of(t: Threshold): TestedChange {
    const found = this.tested.get(metricKey(t));
    if (!found) throw new Error(`internal: ${t.expression} was not measured`);
    return found;
  }

  private correct(family: CorrectionFamily, members: readonly [string, Measured][]): void {
    const asking = members.filter(([, m]) => m.significance !== null && !asksNothing(m));
    const adjusted = holmAdjusted(asking.map(([, m]) => m.significance?.p ?? 1));
    const pOf = new Map(asking.map(([key], i) => [key, adjusted[i] ?? 1]));
    for (const [key, m] of members) {
      const p = pOf.get(key) ?? 1;
      const corrected: Correction = { family, tests: asking.length, p, confidence: 1 - p };
      const raw: Resampled | null = m.significance;
      this.tested.set(key, {
        baseline: m.baseline,
        current: m.current,
        significance: raw === null ? null : { ...raw, corrected },
      });
    }
  }
}
