import type { Severity, Violation } from '../core/violation.js';
import type { ViolationData, ViolationExampleData } from './metrics-data.js';

/** A few examples per check id are enough to act on; the count says how many there were. */
export const MAX_EXAMPLES = 3;

/**
 * Earliest first (wall clock), then by content (message, job, evidence, then all of it), so the
 * examples kept never depend on arrival order.
 */
function compareExamples(a: ViolationExampleData, b: ViolationExampleData): number {
  const byTime = a.anchorMs + a.violation.at - (b.anchorMs + b.violation.at);
  if (byTime !== 0) return byTime;
  const ka = contentKey(a);
  const kb = contentKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function contentKey(e: ViolationExampleData): string {
  const v = e.violation;
  return `${v.message}\u0000${v.jobId ?? ''}\u0000${JSON.stringify(v.evidence)}\u0000${JSON.stringify(e)}`;
}

function worse(a: Severity, b: Severity): Severity {
  return a === 'error' || b === 'error' ? 'error' : 'warning';
}

/** Violations counted by check id, keeping the earliest few of each as examples. */
export class ViolationTally {
  private readonly byId = new Map<string, ViolationData>();

  add(violation: Violation, anchorMs: number): void {
    this.addData({
      id: violation.id,
      severity: violation.severity,
      count: 1,
      examples: [{ anchorMs, violation }],
    });
  }

  merge(other: ViolationTally): this {
    for (const d of other.byId.values()) this.addData(d);
    return this;
  }

  get total(): number {
    let n = 0;
    for (const d of this.byId.values()) n += d.count;
    return n;
  }

  toJSON(): ViolationData[] {
    return [...this.byId.values()]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((d) => ({ ...d, examples: [...d.examples] }));
  }

  static fromJSON(data: readonly ViolationData[]): ViolationTally {
    const t = new ViolationTally();
    for (const d of data) t.addData(d);
    return t;
  }

  private addData(d: ViolationData): void {
    const mine = this.byId.get(d.id);
    if (!mine) {
      this.byId.set(d.id, { ...d, examples: [...d.examples].sort(compareExamples).slice(0, MAX_EXAMPLES) });
      return;
    }
    mine.count += d.count;
    mine.severity = worse(mine.severity, d.severity);
    mine.examples = [...mine.examples, ...d.examples].sort(compareExamples).slice(0, MAX_EXAMPLES);
  }
}
