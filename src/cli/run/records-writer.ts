import { closeSync, fsyncSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import type { JobstormRecord } from '../../core/record.js';

/** How much the writer holds before it writes: a bounded loss if the process is killed outright. */
const BUFFER_BYTES = 256 * 1024;

/** Where records go: a file descriptor's writeSync by default; tests inject failures here. */
export interface RecordSink {
  write(data: Buffer, position: number): number;
  truncate(length: number): void;
  close(): void;
}

function fileSink(path: string): RecordSink {
  const fd = openSync(path, 'w');
  return {
    write: (data, position) => writeSync(fd, data, 0, data.length, position),
    truncate: (length) => ftruncateSync(fd, length),
    close: () => {
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
  };
}

/**
 * Writes records as ndjson, buffering lines so a run at thousands of requests a second makes a
 * write call every few hundred records, not one per record. Writes are synchronous so a forced
 * exit (second Ctrl-C) can flush from its signal handler. Only whole lines reach the file: after
 * a failed or short write the file is cut back to the last whole line, writing stops, and
 * `onError` is told once (the run then stops as "output failed").
 */
export class RecordsWriter {
  private readonly sink: RecordSink;
  private buffer: string[] = [];
  private bytes = 0;
  private written = 0;
  private lines = 0;
  private failure: Error | undefined;
  private closed = false;

  constructor(
    path: string,
    private readonly onError: (err: Error) => void = () => undefined,
    sink?: RecordSink,
  ) {
    this.sink = sink ?? fileSink(path);
  }

  /** Lines fully written to the file. */
  get linesWritten(): number {
    return this.lines;
  }

  get error(): Error | undefined {
    return this.failure;
  }

  add(r: JobstormRecord): void {
    if (this.failure || this.closed) return;
    const line = `${JSON.stringify(r)}\n`;
    this.buffer.push(line);
    this.bytes += line.length;
    if (this.bytes > BUFFER_BYTES) this.flush();
  }

  /** Writes what is buffered; safe to call from a signal handler. */
  flush(): void {
    if (this.failure || this.closed || this.buffer.length === 0) return;
    const count = this.buffer.length;
    const data = Buffer.from(this.buffer.join(''));
    this.buffer = [];
    this.bytes = 0;
    let done = 0;
    try {
      while (done < data.length) {
        const n = this.sink.write(data.subarray(done), this.written + done);
        if (n <= 0) throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
        done += n;
      }
      this.written += done;
      this.lines += count;
    } catch (err) {
      this.fail(err, data.subarray(0, done));
    }
  }

  close(): Promise<void> {
    this.flush();
    if (!this.closed) {
      this.closed = true;
      try {
        this.sink.close();
      } catch (err) {
        if (!this.failure) this.fail(err, undefined);
      }
    }
    return Promise.resolve();
  }

  private fail(err: unknown, partial: Buffer | undefined): void {
    this.failure = err instanceof Error ? err : new Error(String(err));
    if (partial && partial.length > 0) {
      // Part of the batch reached the file: keep its whole lines, cut the one written halfway.
      const keep = partial.lastIndexOf(0x0a) + 1;
      for (let i = 0; i < keep; i++) if (partial[i] === 0x0a) this.lines++;
      this.written += keep;
      try {
        this.sink.truncate(this.written);
      } catch {
        // Nothing more can be done; a reader skips an unparsable last line.
      }
    }
    this.buffer = [];
    this.onError(this.failure);
  }
}
