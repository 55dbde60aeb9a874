import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../src/trace/index.js';
import { tempDir } from './temp-dir.js';

const dir = tempDir();

function written(name: string, content: string | Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

const lines = (file: string, chunkBytes?: number) =>
  [...readLines(file, chunkBytes)].map((l) => [l.line, l.text]);

describe('readLines', () => {
  it.each([
    ['LF', 'a\nb\nc\n'],
    ['CRLF', 'a\r\nb\r\nc\r\n'],
    ['no newline after the last line', 'a\nb\nc'],
    ['CRLF and no newline after the last line', 'a\r\nb\r\nc'],
  ])('reads %s', (_name, content) => {
    const file = written('lf.txt', content);
    for (const chunk of [1, 2, 3, 64 * 1024])
      expect(lines(file, chunk)).toEqual([
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ]);
  });

  it('numbers blank lines, keeps a lone CR inside a line and drops a BOM', () => {
    const file = written('blank.txt', '\uFEFFfirst\n\n\r\nx\ry\n');
    expect(lines(file, 2)).toEqual([
      [1, 'first'],
      [2, ''],
      [3, ''],
      [4, 'x\ry'],
    ]);
  });

  it('reads nothing from an empty file', () => {
    expect(lines(written('empty.txt', ''))).toEqual([]);
  });

  it('joins a UTF-8 character split between two reads, at every split point', () => {
    // 2-, 3- and 4-byte characters (é, 漢, 🚀), and one straddling a CRLF: every chunk size from
    // 1 to the line's length puts some boundary inside each of them.
    const text = 'é漢🚀,ü\r\n🚀🚀\n末';
    const file = written('utf8.txt', Buffer.from(text, 'utf8'));
    for (let chunk = 1; chunk <= Buffer.byteLength(text); chunk++)
      expect(lines(file, chunk), `chunk of ${chunk} bytes`).toEqual([
        [1, 'é漢🚀,ü'],
        [2, '🚀🚀'],
        [3, '末'],
      ]);
  });

  it('stops reading when the loop breaks (the file is closed by the generator)', () => {
    const file = written('many.txt', 'a\nb\nc\n');
    const it = readLines(file, 1);
    expect(it.next().value).toEqual({ line: 1, text: 'a' });
    expect(it.return(undefined).done).toBe(true);
    expect(it.next().done).toBe(true);
  });
});
