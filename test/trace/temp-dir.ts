import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A temporary folder for the calling test file, removed after its tests. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'jobstorm-trace-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
