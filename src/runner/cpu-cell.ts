import type { CpuReading } from '../core/cpu-starvation.js';

/**
 * The process's CPU readings, shared with the shard threads of a `--workers` run: only the main
 * thread's owner may read `process`, and a shard's watch must sample it synchronously each second.
 * The main thread writes a reading every WRITE_EVERY_MS; a shard takes its share (÷ shards).
 *
 * Two integers (µs) in shared memory, written CPU first and time second, and read time first and
 * CPU second: a reader between the two writes sees an old time with a new CPU figure, which can
 * only overstate the share (never report a starved second that was not).
 */
const WRITE_EVERY_MS = 250;

export class CpuCell {
  private readonly cell: BigInt64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(16)) {
    this.cell = new BigInt64Array(buffer);
  }

  /** A cell with a reading written now and every WRITE_EVERY_MS until `stop` is called. */
  static fed(read: () => CpuReading): { cell: CpuCell; stop: () => void } {
    const cell = new CpuCell();
    const write = (): void => {
      const r = read();
      Atomics.store(cell.cell, 0, BigInt(Math.round(r.micros)));
      Atomics.store(cell.cell, 1, BigInt(Math.round(r.atMs * 1000)));
    };
    write();
    const timer = setInterval(write, WRITE_EVERY_MS);
    timer.unref();
    return { cell, stop: () => clearInterval(timer) };
  }

  /** A shard's reader: the last reading, its CPU divided among `shards` threads. */
  reader(shards: number): () => CpuReading {
    return () => {
      const atMs = Number(Atomics.load(this.cell, 1)) / 1000;
      const micros = Number(Atomics.load(this.cell, 0)) / shards;
      return { micros, atMs };
    };
  }
}
