import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** One line of a file, without its line break, and its 1-based number. */
export interface NumberedLine {
  readonly line: number;
  readonly text: string;
}

/** Large enough that a read costs little per line, small enough to be nothing beside a run's heap. */
export const DEFAULT_CHUNK_BYTES = 64 * 1024;

/**
 * The lines of a local file, read a chunk at a time: only the chunk and the line being finished are
 * held, so memory does not grow with the file. Synchronous on purpose: the arrival schedule a trace
 * feeds is a pure, synchronous iterator, and a trace file is local (one read costs microseconds).
 *
 * LF and CRLF both end a line (a lone CR does not); a last line without a line break is still a
 * line; a UTF-8 character split between two chunks is joined by the decoder; a BOM is dropped.
 * Breaking out of the loop closes the file (the generator's `finally`).
 */
export function* readLines(
  file: string,
  chunkBytes = DEFAULT_CHUNK_BYTES,
): Generator<NumberedLine, void, undefined> {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.floor(chunkBytes)));
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let line = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      const text = pending + (read === 0 ? decoder.end() : decoder.write(buffer.subarray(0, read)));
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        line++;
        yield { line, text: cleaned(text.slice(start, end), line) };
        start = end + 1;
      }
      pending = text.slice(start);
      if (read === 0) break;
    }
    if (pending !== '') yield { line: line + 1, text: cleaned(pending, line + 1) };
  } finally {
    closeSync(fd);
  }
}

function cleaned(text: string, line: number): string {
  const bare = text.endsWith('\r') ? text.slice(0, -1) : text;
  return line === 1 && bare.startsWith('\uFEFF') ? bare.slice(1) : bare;
}
