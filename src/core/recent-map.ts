/**
 * The latest entries of a stream of keys, in two generations: a set goes into the newer one, and
 * once that holds `keep` entries the older generation is let go whole and the newer takes its
 * place. It always holds at least the `keep` latest keys set (and at most twice as many).
 *
 * Why not a CappedMap: at its cap, every set there drops the oldest entry (an iterator step and a
 * delete). A map that takes a key per job and is asked about few of them (the route watch's accept
 * times) spent 2-4 % of a run-only load's CPU doing that, twice over (the runner's watch and the
 * checks'); here a set is one Map.set, and a generation goes to the collector in one piece.
 */
export class RecentMap<K, V> {
  private newer = new Map<K, V>();
  private older = new Map<K, V>();

  constructor(private readonly keep: number) {}

  get(key: K): V | undefined {
    const v = this.newer.get(key);
    return v !== undefined || this.newer.has(key) ? v : this.older.get(key);
  }

  set(key: K, value: V): void {
    this.newer.set(key, value);
    if (this.newer.size >= this.keep) {
      this.older = this.newer;
      this.newer = new Map();
    }
  }

  /** Entries held (a key set in both generations counts twice). */
  get size(): number {
    return this.newer.size + this.older.size;
  }

  clear(): void {
    this.newer = new Map();
    this.older = new Map();
  }
}
