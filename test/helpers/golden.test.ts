import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPARE_GOLDEN } from '../compare/golden-files.js';
import { REPORT_GOLDEN } from '../report/golden-files.js';
import { expectGolden } from './golden.js';

const dir = mkdtempSync(join(tmpdir(), 'jobstorm-golden-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const testDir = fileURLToPath(new URL('../', import.meta.url));

function files(d: string): string[] {
  return readdirSync(d).flatMap((name) => {
    const path = join(d, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('golden files', () => {
  it('a difference fails, says how to accept it, and leaves the file as it was', () => {
    const file = join(dir, 'out.txt');
    writeFileSync(file, 'before\n');
    expect(() => expectGolden({ file, render: () => 'after\n' })).toThrow(/npm run golden:update/);
    expect(readFileSync(file, 'utf8')).toBe('before\n');
    expect(() => expectGolden({ file, render: () => 'before\n' })).not.toThrow();
  });

  it('a missing one fails with the same advice and is not created', () => {
    const file = join(dir, 'missing.txt');
    expect(() => expectGolden({ file, render: () => 'x' })).toThrow(/missing.*npm run golden:update/);
    expect(() => statSync(file)).toThrow();
  });

  it('are written only by `npm run golden:update`, which covers every file under a golden/ folder', () => {
    const pkg = JSON.parse(readFileSync(join(testDir, '../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['golden:update']).toBe('tsx test/helpers/golden-update.ts');
    const tables = new Set([...REPORT_GOLDEN, ...COMPARE_GOLDEN].map((g) => g.file));
    const committed = files(testDir).filter((f) => /[\\/]golden[\\/]/.test(f));
    expect(committed.length).toBeGreaterThan(0);
    for (const f of committed) expect(tables.has(f), f).toBe(true);
    // No test rewrites a golden file on an environment switch and then compares it with itself.
    const self = fileURLToPath(import.meta.url);
    const writers = files(testDir).filter(
      (f) => f.endsWith('.ts') && f !== self && readFileSync(f, 'utf8').includes('UPDATE_GOLDEN'),
    );
    expect(writers).toEqual([]);
  });
});
