/**
 * The process groups of the worker processes still running, in shared memory, so an owner in
 * another thread can read them synchronously: a user's second Ctrl-C quits at once, from a signal
 * handler, with no time to ask the emulator's thread (busy or not) to stop its workers, and
 * detached workers (a group of their own) would otherwise outlive jobstorm.
 *
 * Slot 0 means free; a launcher writes a group id into a free slot when it starts a process and
 * clears it once the whole group has exited.
 */
export class ProcessGroups {
  private readonly slots: Int32Array;

  // One more cell after the slots: the closed flag.
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4 * (ProcessGroups.SLOTS + 1))) {
    this.slots = new Int32Array(buffer);
  }

  /**
   * Room for this many groups at once: a scenario's worker section allows 64 processes, and a
   * stopping worker keeps its slot through its grace while its replacement starts.
   */
  static readonly SLOTS = 256;

  /**
   * Set by a forced exit before it kills the groups: the workers it kills would otherwise be
   * replaced, from the emulator's thread, by processes started after the kill and before the exit
   * ends that thread, and those would outlive jobstorm. A launcher starts nothing once it is set.
   */
  close(): void {
    Atomics.store(this.slots, ProcessGroups.SLOTS, 1);
  }

  isClosed(): boolean {
    return Atomics.load(this.slots, ProcessGroups.SLOTS) === 1;
  }

  /** False when every slot is taken (the group then cannot be killed on a forced exit). */
  add(pgid: number): boolean {
    for (let i = 0; i < ProcessGroups.SLOTS; i++) {
      if (Atomics.compareExchange(this.slots, i, 0, pgid) === 0) return true;
    }
    return false;
  }

  remove(pgid: number): void {
    for (let i = 0; i < ProcessGroups.SLOTS; i++) {
      if (Atomics.compareExchange(this.slots, i, pgid, 0) === pgid) return;
    }
  }

  /** Every group recorded as running, now. */
  live(): number[] {
    const out: number[] = [];
    for (let i = 0; i < ProcessGroups.SLOTS; i++) {
      const g = Atomics.load(this.slots, i);
      if (g !== 0) out.push(g);
    }
    return out;
  }
}
