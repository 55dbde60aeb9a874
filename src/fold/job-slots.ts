/** The job's first stream chunk was seen. */
export const SLOT_CHUNK_SEEN = 1;
/** The job was opened by a request intended in the warm-up: measured consumers leave it out. */
export const SLOT_WARM = 2;
/** The job was read through `/stream`: its output (or the lack of it) is judged for goodput. */
export const SLOT_STREAM_READ = 4;

/**
 * Per job in flight: `sentAt` of its opening request (on the run's monotonic clock), its flags and
 * its shard's number, in typed arrays by slot. The map of jobs holds only the slot, a small integer:
 * a time there, or an object holding one, is a heap object per job in flight for every
 * mark-compact to trace, and a run whose jobs stay queued has thousands in flight.
 */
export class JobSlots {
  private at = new Float64Array(SLOTS_AT_FIRST);
  private flag = new Uint8Array(SLOTS_AT_FIRST);
  private shard = new Uint16Array(SLOTS_AT_FIRST);
  private readonly free: number[] = [];
  private used = 0;

  take(openedAt: number, flags: number, shard: number): number {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.used++;
      if (slot >= this.at.length) this.grow();
    }
    this.set(slot, openedAt, flags);
    this.shard[slot] = shard;
    return slot;
  }

  set(slot: number, openedAt: number, flags: number): void {
    this.at[slot] = openedAt;
    this.flag[slot] = flags;
  }

  release(slot: number): void {
    this.free.push(slot);
  }

  get inUse(): number {
    return this.used - this.free.length;
  }

  openedAt(slot: number): number {
    return this.at[slot] ?? Number.NaN;
  }

  has(slot: number, flag: number): boolean {
    return ((this.flag[slot] ?? 0) & flag) !== 0;
  }

  mark(slot: number, flag: number): void {
    this.flag[slot] = (this.flag[slot] ?? 0) | flag;
  }

  shardOf(slot: number): number {
    return this.shard[slot] ?? 0;
  }

  private grow(): void {
    const at = new Float64Array(this.at.length * 2);
    at.set(this.at);
    this.at = at;
    const flag = new Uint8Array(this.flag.length * 2);
    flag.set(this.flag);
    this.flag = flag;
    const shard = new Uint16Array(this.shard.length * 2);
    shard.set(this.shard);
    this.shard = shard;
  }
}

const SLOTS_AT_FIRST = 256;
