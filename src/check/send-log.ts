/**
 * Requests of one operation in send order, as columns in a ring: send and end times, whether it
 * was throttled, and a detail for its evidence. A busy run holds every request of the last 45 s
 * or so (the settle time plus a window); typed columns in a reused ring keep that off the garbage
 * collector, where an object per request, or arrays that grow and are spliced, put it on.
 *
 * Indices are absolute (they only grow); `release` lets go of everything below an index.
 */
/** How a request was answered, as the rate-limit rules count it. */
export const SendOutcome = { Accepted: 0, Throttled: 1, Other: 2 } as const;
export type SendOutcome = (typeof SendOutcome)[keyof typeof SendOutcome];

export class SendLog<D> {
  private capacity = 1024;
  private mask = 1023;
  private sent = new Float64Array(1024);
  private end = new Float64Array(1024);
  private flags = new Uint8Array(1024);
  private details: (D | undefined)[] = new Array<D | undefined>(1024).fill(undefined);
  private head = 0;
  /** One past the last index. */
  length = 0;

  /**
   * Adds a request where its send time belongs. Records arrive by end time, so it is almost
   * always an append or a short shift; entries below `floor` (already judged) never move.
   */
  push(sentAt: number, endAt: number, outcome: SendOutcome, detail: D | undefined, floor: number): void {
    if (this.length - this.head === this.capacity) this.grow();
    const { sent, end, flags, details, mask } = this;
    let i = this.length++;
    while (i > floor && (sent[(i - 1) & mask] ?? 0) > sentAt) {
      const from = (i - 1) & mask;
      const to = i & mask;
      sent[to] = sent[from] ?? 0;
      end[to] = end[from] ?? 0;
      flags[to] = flags[from] ?? 0;
      details[to] = details[from];
      i--;
    }
    const at = i & mask;
    sent[at] = sentAt;
    end[at] = endAt;
    flags[at] = outcome;
    details[at] = detail;
  }

  sentAt(i: number): number {
    return this.sent[i & this.mask] ?? 0;
  }

  endAt(i: number): number {
    return this.end[i & this.mask] ?? 0;
  }

  throttled(i: number): boolean {
    return this.flags[i & this.mask] === SendOutcome.Throttled;
  }

  accepted(i: number): boolean {
    return this.flags[i & this.mask] === SendOutcome.Accepted;
  }

  detail(i: number): D | undefined {
    return this.details[i & this.mask];
  }

  /** Entries below `upTo` are not needed any more. */
  release(upTo: number): void {
    for (let i = this.head; i < upTo; i++) this.details[i & this.mask] = undefined;
    this.head = Math.max(this.head, upTo);
  }

  private grow(): void {
    const capacity = this.capacity * 2;
    const mask = capacity - 1;
    const sent = new Float64Array(capacity);
    const end = new Float64Array(capacity);
    const flags = new Uint8Array(capacity);
    const details = new Array<D | undefined>(capacity).fill(undefined);
    for (let i = this.head; i < this.length; i++) {
      const from = i & this.mask;
      const to = i & mask;
      sent[to] = this.sent[from] ?? 0;
      end[to] = this.end[from] ?? 0;
      flags[to] = this.flags[from] ?? 0;
      details[to] = this.details[from];
    }
    this.capacity = capacity;
    this.mask = mask;
    this.sent = sent;
    this.end = end;
    this.flags = flags;
    this.details = details;
  }
}
