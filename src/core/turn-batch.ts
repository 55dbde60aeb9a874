/**
 * Collects items and hands them to a sink together, once per turn of the event loop, in the order
 * they came.
 *
 * The live checker sits behind one: run inline, its work for each answer lands between the
 * answer and the next request of the same virtual user, and interleaved with the client's work it
 * runs cold. After the turn's I/O, the turn's requests are already on the wire, and the checker
 * does the turn's records in one warm pass (flow-mode throughput with all checks on went from
 * about 83 % to about 90 % of checks off in `bench/checks-overhead.ts`).
 */
export class TurnBatch<T> {
  private items: T[] = [];
  private scheduled = false;
  private failure: unknown;
  private failed = false;

  constructor(private readonly sink: (items: readonly T[]) => void) {}

  push(item: T): void {
    this.items.push(item);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.onTurn);
    }
  }

  /**
   * Hands over everything pending now (call it before reading the sink's results). A sink that
   * threw during a turn throws here, where the caller can report it, instead of in a timer.
   */
  flush(): void {
    this.drain();
    if (this.failed) {
      this.failed = false;
      throw this.failure;
    }
  }

  private readonly onTurn = (): void => {
    this.scheduled = false;
    try {
      this.drain();
    } catch (err) {
      if (!this.failed) {
        this.failed = true;
        this.failure = err;
      }
    }
  };

  private drain(): void {
    if (this.items.length === 0) return;
    const items = this.items;
    this.items = [];
    this.sink(items);
  }
}
