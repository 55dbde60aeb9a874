import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordsWriter, type RecordSink } from '../../../src/cli/run/records-writer.js';
import { RECORD_VERSION, type DroppedRecord } from '../../../src/core/record.js';

/*
 * Issue 12: records reach the file as whole lines only. A full disk (ENOSPC) after part of a
 * batch keeps the whole lines written, cuts the one written halfway, stops writing and says so.
 */

function dropped(i: number): DroppedRecord {
  return { v: RECORD_VERSION, type: 'dropped', seq: i, intendedAt: i, flow: `flow-${'x'.repeat(200)}` };
}

/** A file in memory that takes `room` bytes, then answers ENOSPC (after a short write, as a disk does). */
function fullDisk(room: number): RecordSink & { data: Buffer; closed: boolean } {
  const sink = {
    data: Buffer.alloc(0),
    closed: false,
    write(chunk: Buffer, position: number): number {
      if (position !== sink.data.length)
        throw new Error(`write at ${String(position)}, file is ${String(sink.data.length)} bytes`);
      const free = room - sink.data.length;
      if (free <= 0)
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      const n = Math.min(free, chunk.length);
      sink.data = Buffer.concat([sink.data, chunk.subarray(0, n)]);
      return n;
    },
    truncate(length: number): void {
      sink.data = sink.data.subarray(0, length);
    },
    close(): void {
      sink.closed = true;
    },
  };
  return sink;
}

describe('RecordsWriter', () => {
  it('on ENOSPC keeps the whole lines, never half of one, stops and reports once', async () => {
    const sink = fullDisk(100_000);
    const errors: Error[] = [];
    const w = new RecordsWriter('unused', (e) => errors.push(e), sink);
    for (let i = 0; i < 3000; i++) w.add(dropped(i));
    await w.close();
    expect(errors).toHaveLength(1);
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('ENOSPC');
    const text = sink.data.toString();
    expect(text.length).toBeGreaterThan(90_000);
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as DroppedRecord);
    expect(lines.map((r) => r.seq)).toEqual(lines.map((_, i) => i));
    expect(w.linesWritten).toBe(lines.length);
    expect(sink.closed).toBe(true);
  });

  it('flush writes what is buffered at once (what a second Ctrl-C relies on)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-writer-'));
    const path = join(dir, 'records.ndjson');
    const w = new RecordsWriter(path);
    for (let i = 0; i < 5; i++) w.add(dropped(i));
    expect(await readFile(path, 'utf8')).toBe('');
    w.flush();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as DroppedRecord).seq)).toEqual([0, 1, 2, 3, 4]);
    w.add(dropped(5));
    await w.close();
    expect((await readFile(path, 'utf8')).trimEnd().split('\n')).toHaveLength(6);
  });
});
