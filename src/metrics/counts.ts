/** String-keyed counters; plain objects so they serialize as they are. */
export type Counts = Record<string, number>;

export function increment(counts: Counts, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

export function mergeCounts(into: Counts, from: Readonly<Counts>): void {
  for (const [k, v] of Object.entries(from)) increment(into, k, v);
}

/** A copy with keys sorted, so serialized output does not depend on arrival order. */
export function sortedCounts(counts: Readonly<Counts>): Counts {
  const out: Counts = {};
  for (const k of Object.keys(counts).sort()) out[k] = counts[k] ?? 0;
  return out;
}
