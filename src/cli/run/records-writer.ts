import { createWriteStream, type WriteStream } from 'node:fs';
import type { JobstormRecord } from '../../core/record.js';

/**
 * Writes records as ndjson, buffering lines so a run at thousands of requests a second makes a
 * write call every few hundred records, not one per record.
 */
export class RecordsWriter {
  private readonly stream: WriteStream;
  private buffer: string[] = [];
  private bytes = 0;

  constructor(path: string) {
    this.stream = createWriteStream(path);
  }

  add(r: JobstormRecord): void {
    const line = `${JSON.stringify(r)}\n`;
    this.buffer.push(line);
    this.bytes += line.length;
    if (this.bytes > 256 * 1024) this.flush();
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    this.stream.write(this.buffer.join(''));
    this.buffer = [];
    this.bytes = 0;
  }

  close(): Promise<void> {
    this.flush();
    return new Promise<void>((resolve, reject) => {
      this.stream.end((err?: Error | null) => (err ? reject(err) : resolve()));
    });
  }
}
