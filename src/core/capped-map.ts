/**
 * A Map that forgets its oldest entries once it holds more than `cap`, in insertion order.
 *
 * Finding the oldest entry with `map.keys().next()` scans from the start of V8's table over every
 * slot deleted since the table was last rebuilt, so dropping the oldest entry one at a time costs
 * time proportional to everything dropped before: about 230 µs per drop at 500,000 entries, where
 * a long run spends its whole time. One long-lived iterator (which Map iterators allow, across
 * inserts, deletes and rebuilds) walks past each deleted slot once instead.
 *
 * But an iterator holds on to the table it was made on, and V8 leaves a rebuilt table's entries
 * in the old one for the iterator to move across on its next step: an iterator that does not step
 * keeps every table the map has outgrown since, each with the values it held, deleted or not. The
 * checker's job book deletes every job it folds and rebuilds its table every few thousand jobs, so
 * an iterator made up front and never stepped (the cap is seldom reached) kept every folded job:
 * the heap grew with the run. So the iterator is made when an entry must be dropped, and let go
 * once `IDLE_OPS` sets and deletes have passed without a drop: a map kept at its cap steps it at
 * every set, and one below its cap holds none.
 */
export class CappedMap<K, V> {
  private readonly map = new Map<K, V>();
  private oldest: IterableIterator<[K, V]> | undefined;
  /** Sets and deletes since the last drop. */
  private idle = 0;

  /** `onDrop` hears of each entry dropped for the cap (not of `delete` calls). */
  constructor(
    private readonly cap: number,
    private readonly onDrop?: (key: K, value: V) => void,
  ) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Adds or replaces (a replaced entry keeps its place in the order), then enforces the cap. */
  set(key: K, value: V): void {
    this.map.set(key, value);
    if (this.map.size <= this.cap) {
      this.rest();
      return;
    }
    while (this.map.size > this.cap) this.dropOldest();
    this.idle = 0;
  }

  delete(key: K): boolean {
    const had = this.map.delete(key);
    this.rest();
    return had;
  }

  clear(): void {
    this.map.clear();
    this.oldest = undefined;
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  private dropOldest(): void {
    // Every entry the iterator passed was dropped, so the next one it yields is the oldest left.
    let next = this.oldest?.next();
    if (next === undefined || next.done === true) {
      // A finished iterator stays finished; entries added since need a fresh one.
      this.oldest = this.map.entries();
      next = this.oldest.next();
      if (next.done === true) return;
    }
    const [key, value] = next.value;
    this.map.delete(key);
    this.onDrop?.(key, value);
  }

  /** An operation without a drop: past IDLE_OPS of them the iterator is let go (see the class). */
  private rest(): void {
    if (this.oldest !== undefined && ++this.idle > IDLE_OPS) {
      this.oldest = undefined;
      this.idle = 0;
    }
  }
}

/** Few enough that an idle iterator holds a table or two, many enough that a map at its cap keeps one. */
const IDLE_OPS = 1024;
