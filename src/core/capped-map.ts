/**
 * A Map that forgets its oldest entries once it holds more than `cap`, in insertion order.
 *
 * Finding the oldest entry with `map.keys().next()` scans from the start of V8's table over every
 * slot deleted since the table was last rebuilt, so dropping the oldest entry one at a time costs
 * time proportional to everything dropped before: about 230 µs per drop at 500,000 entries, where
 * a long run spends its whole time. One long-lived iterator (which Map iterators allow, across
 * inserts, deletes and rebuilds) walks past each deleted slot once instead.
 */
export class CappedMap<K, V> {
  private readonly map = new Map<K, V>();
  private oldest: IterableIterator<[K, V]>;

  /** `onDrop` hears of each entry dropped for the cap (not of `delete` calls). */
  constructor(
    private readonly cap: number,
    private readonly onDrop?: (key: K, value: V) => void,
  ) {
    this.oldest = this.map.entries();
  }

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
    while (this.map.size > this.cap) this.dropOldest();
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  private dropOldest(): void {
    // Every entry the iterator passed was dropped, so the next one it yields is the oldest left.
    let next = this.oldest.next();
    if (next.done === true) {
      // A finished iterator stays finished; entries added since need a fresh one.
      this.oldest = this.map.entries();
      next = this.oldest.next();
      if (next.done === true) return;
    }
    const [key, value] = next.value;
    this.map.delete(key);
    this.onDrop?.(key, value);
  }
}
