/**
 * The latest `keep` entries of a stream of keys, in a ring: a set is two array stores, and the
 * oldest entry is overwritten by the newest, in place.
 *
 * Why not a CappedMap: at its cap, every set there drops the oldest entry (an iterator step and a
 * delete). Why not two generations of Maps (this class before): each generation is a Map grown
 * from empty by rehashing, a Map.set per key. A map that takes a key per job and is asked about
 * few of them (the route watch's accept times, twice over: the runner's watch and the checks')
 * spent 2.4-2.6 % of a run-only load's CPU in Map.set alone that way.
 *
 * A get reads the ring from the newest entry back, as far as the last index: a Map from key to
 * its place, built from the whole ring when a get finds more than REINDEX entries set since the
 * last one. Gets are rare (a 404 before its route is known), so most rings are never indexed.
 */
export class RecentMap<K, V> {
  private readonly keys: (K | undefined)[];
  private readonly values: (V | undefined)[];
  /** Sets so far: the next one goes to slot `sets % keep`. */
  private sets = 0;
  /** Key to the sequence number (count of sets before it) of its latest set when indexed. */
  private readonly index = new Map<K, number>();
  /** Sets before this one are in `index` (those still in the ring). */
  private indexedTo = 0;

  constructor(private readonly keep: number) {
    if (!Number.isInteger(keep) || keep < 1)
      throw new RangeError(`RecentMap keep must be a positive integer, got ${String(keep)}`);
    this.keys = new Array<K | undefined>(keep).fill(undefined);
    this.values = new Array<V | undefined>(keep).fill(undefined);
  }

  get(key: K): V | undefined {
    if (this.sets - this.indexedTo > REINDEX) this.reindex();
    const oldest = Math.max(this.indexedTo, this.sets - this.keep);
    for (let seq = this.sets - 1; seq >= oldest; seq--)
      if (this.keys[seq % this.keep] === key) return this.values[seq % this.keep];
    const seq = this.index.get(key);
    // An indexed place overwritten since (older than the ring) is forgotten.
    return seq !== undefined && seq >= this.sets - this.keep ? this.values[seq % this.keep] : undefined;
  }

  set(key: K, value: V): void {
    const slot = this.sets % this.keep;
    this.keys[slot] = key;
    this.values[slot] = value;
    this.sets++;
  }

  /** Entries held (a key set twice among them counts twice). */
  get size(): number {
    return Math.min(this.sets, this.keep);
  }

  clear(): void {
    this.keys.fill(undefined);
    this.values.fill(undefined);
    this.sets = 0;
    this.index.clear();
    this.indexedTo = 0;
  }

  private reindex(): void {
    this.index.clear();
    for (let seq = Math.max(0, this.sets - this.keep); seq < this.sets; seq++)
      this.index.set(this.keys[seq % this.keep] as K, seq);
    this.indexedTo = this.sets;
  }
}

/** A get scans at most this many entries set since the last index, or indexes the ring first. */
const REINDEX = 512;
