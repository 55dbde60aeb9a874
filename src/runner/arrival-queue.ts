/**
 * Arrivals waiting for a free connection, first in first out: only their intended times, in a
 * ring of doubles that doubles when full. A waiting arrival costs 8 bytes here; started, it would
 * be an iteration, a request and its handler waiting in the pool's queue, some fifty objects that a
 * backlog of seconds promotes to the old generation (see Dispatcher).
 */
export class ArrivalQueue {
  private ring = new Float64Array(256);
  private head = 0;
  /** Arrivals waiting. */
  length = 0;

  push(intendedAt: number): void {
    if (this.length === this.ring.length) this.grow();
    this.ring[(this.head + this.length) % this.ring.length] = intendedAt;
    this.length++;
  }

  /** The oldest waiting arrival's intended time; only call when `length > 0`. */
  shift(): number {
    const at = this.ring[this.head] ?? 0;
    this.head = (this.head + 1) % this.ring.length;
    this.length--;
    return at;
  }

  private grow(): void {
    const bigger = new Float64Array(this.ring.length * 2);
    for (let i = 0; i < this.length; i++) bigger[i] = this.ring[(this.head + i) % this.ring.length] ?? 0;
    this.ring = bigger;
    this.head = 0;
  }
}
