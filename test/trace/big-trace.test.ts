import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/trace/index.js';
import { tempDir } from './temp-dir.js';

/*
 * What this proves: reading a trace does not hold it. A million Mooncake rows, each naming eight
 * cache blocks, make a file of about 140 MB; holding them, as text or as the row objects the reader
 * yields, would grow the heap well past 50 MB. Counting them and then iterating them all leaves the
 * heap within 50 MB of where it started. The heap is read after a full collection: what is read is
 * what the reader holds, not garbage a busy machine had not collected yet (a CI run with a soak
 * beside it read 829 MB of uncollected garbage without one).
 */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Heap in use once the garbage is gone. */
function heldHeap(): number {
  collect();
  return process.memoryUsage().heapUsed;
}

const ROWS = 1_000_000;
const MAX_GROWTH = 50 * 1024 * 1024;
const dir = tempDir();

/** Writes the trace 10,000 rows at a time, so the test itself never holds it either. */
function writeTrace(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (let start = 0; start < ROWS; start += 10_000) {
      let chunk = '';
      for (let i = start; i < start + 10_000; i++) {
        const blocks = Array.from({ length: 8 }, (_, k) => i * 8 + k).join(',');
        chunk += `{"timestamp": ${i * 3}, "input_length": ${i % 4096}, "output_length": ${i % 512}, "hash_ids": [${blocks}]}\n`;
      }
      writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
}

describe('a large trace', () => {
  it(`counts and iterates ${ROWS.toLocaleString('en')} rows with the heap growing less than 50 MB`, () => {
    const file = join(dir, 'big.jsonl');
    writeTrace(file);
    const trace = openTrace(file, 'mooncake');
    const before = heldHeap();
    let peak = before;
    const started = performance.now();

    expect(trace.count()).toBe(ROWS);
    peak = Math.max(peak, heldHeap());
    const counted = performance.now();

    let n = 0;
    let inputTokens = 0;
    let lastMs = -1;
    let outOfOrder = 0;
    for (const row of trace.rows()) {
      if (row.atMs < lastMs) outOfOrder++;
      lastMs = row.atMs;
      inputTokens += row.inputTokens ?? 0;
      if (++n % 100_000 === 0) peak = Math.max(peak, heldHeap());
    }
    const iterated = performance.now();

    expect(n).toBe(ROWS);
    expect(outOfOrder).toBe(0);
    expect(lastMs).toBe((ROWS - 1) * 3);
    // 0 + 1 + … + 4095 for each whole 4096 rows, then 0 … 575 for the last 576.
    expect(inputTokens).toBe(244 * ((4095 * 4096) / 2) + (575 * 576) / 2);
    const growth = peak - before;
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    console.log(
      `big trace: ${mb(statSync(file).size)} MB file, count ${(counted - started).toFixed(0)} ms, ` +
        `iterate ${(iterated - counted).toFixed(0)} ms, heap growth at most ${mb(growth)} MB`,
    );
    expect(growth).toBeLessThan(MAX_GROWTH);
  }, 60_000);
});
