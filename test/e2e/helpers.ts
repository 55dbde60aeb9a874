import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { JobstormRecord } from '../../src/core/record.js';
import type { Summary } from '../../src/report/summary.js';

export const root = new URL('../../', import.meta.url).pathname;

export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `jobstorm-${prefix}-`));
}

export const REPORT_FILES = ['summary.json', 'summary.md', 'report.html', 'junit.xml'] as const;

export function expectReports(dir: string, withRecords: boolean): void {
  for (const f of [...REPORT_FILES, ...(withRecords ? ['records.ndjson'] : [])])
    expect(existsSync(join(dir, f)), `${f} in ${dir}`).toBe(true);
}

export async function readSummary(dir: string): Promise<Summary> {
  return JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')) as Summary;
}

/** Every line of records.ndjson parsed; throws on a line that does not parse. */
export async function readRecords(dir: string): Promise<JobstormRecord[]> {
  const text = await readFile(join(dir, 'records.ndjson'), 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l, i) => {
      try {
        return JSON.parse(l) as JobstormRecord;
      } catch {
        throw new Error(`records.ndjson line ${String(i + 1)} does not parse: ${l.slice(0, 200)}`);
      }
    });
}
