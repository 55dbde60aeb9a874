import { isAccepted } from '../core/known-deviation.js';
import type { Severity, Violation } from '../core/violation.js';
import type { ExchangeCount, ViolationData, ViolationExampleData } from './metrics-data.js';

/** A few examples per check id are enough to act on; the count says how many there were. */
export const MAX_EXAMPLES = 3;

/**
 * New findings before known ones (a known deviation must not crowd out what fails the run), then
 * earliest first (wall clock), then by content (message, job, evidence, then all of it), so the
 * examples kept never depend on arrival order.
 */
function compareExamples(a: ViolationExampleData, b: ViolationExampleData): number {
  const byKnown = Number(isAccepted(a.violation)) - Number(isAccepted(b.violation));
  if (byKnown !== 0) return byKnown;
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

const exchangeKey = (e: Omit<ExchangeCount, 'count'>): string => `${e.op ?? ''} ${String(e.status ?? '')}`;

/** Counts of the same operation and status add up; the order is fixed, so merging is order-free. */
function mergeExchanges(a: readonly ExchangeCount[], b: readonly ExchangeCount[]): ExchangeCount[] {
  const byKey = new Map<string, ExchangeCount>();
  for (const e of [...a, ...b]) {
    const key = exchangeKey(e);
    const mine = byKey.get(key);
    byKey.set(key, mine ? { ...mine, count: mine.count + e.count } : { ...e });
  }
  return [...byKey.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, e]) => e);
}

function mergeEntries(
  a: Readonly<Record<string, number>> | undefined,
  b: Readonly<Record<string, number>> | undefined,
): Record<string, number> | undefined {
  if (!a && !b) return undefined;
  const out: Record<string, number> = { ...a };
  for (const [k, n] of Object.entries(b ?? {})) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** One finding as the tally's data: its known entry, and its exchange when it is new. */
function dataOf(violation: Violation, anchorMs: number): ViolationData {
  const status = violation.evidence.status;
  return {
    id: violation.id,
    severity: violation.severity,
    count: 1,
    ...(isAccepted(violation) ? { known: 1 } : {}),
    ...(violation.known ? { entries: { [String(violation.known.entry)]: 1 } } : {}),
    ...(isAccepted(violation)
      ? {}
      : {
          exchanges: [
            {
              ...(violation.op === undefined ? {} : { op: violation.op }),
              ...(status === undefined ? {} : { status }),
              count: 1,
            },
          ],
        }),
    examples: [{ anchorMs, violation }],
  };
}

/** Violations counted by check id, keeping the earliest few of each as examples. */
export class ViolationTally {
  private readonly byId = new Map<string, ViolationData>();

  add(violation: Violation, anchorMs: number): void {
    this.addData(dataOf(violation, anchorMs));
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
      .map((d) => ({
        ...d,
        ...(d.entries ? { entries: { ...d.entries } } : {}),
        ...(d.exchanges ? { exchanges: d.exchanges.map((e) => ({ ...e })) } : {}),
        examples: [...d.examples],
      }));
  }

  static fromJSON(data: readonly ViolationData[]): ViolationTally {
    const t = new ViolationTally();
    for (const d of data) t.addData(d);
    return t;
  }

  private addData(d: ViolationData): void {
    const mine = this.byId.get(d.id);
    if (!mine) {
      this.byId.set(d.id, {
        ...d,
        ...(d.entries ? { entries: { ...d.entries } } : {}),
        ...(d.exchanges ? { exchanges: mergeExchanges([], d.exchanges) } : {}),
        examples: [...d.examples].sort(compareExamples).slice(0, MAX_EXAMPLES),
      });
      return;
    }
    mine.count += d.count;
    mine.severity = worse(mine.severity, d.severity);
    const known = (mine.known ?? 0) + (d.known ?? 0);
    if (known > 0) mine.known = known;
    const entries = mergeEntries(mine.entries, d.entries);
    if (entries) mine.entries = entries;
    if (mine.exchanges || d.exchanges)
      mine.exchanges = mergeExchanges(mine.exchanges ?? [], d.exchanges ?? []);
    mine.examples = [...mine.examples, ...d.examples].sort(compareExamples).slice(0, MAX_EXAMPLES);
  }
}
