import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareOutFolder } from '../../../src/cli/run/out-folder.js';
import { ConfigError } from '../../../src/core/config-error.js';
import { tempDir } from '../../e2e/helpers.js';

/* Issue 12: --out is proven writable before anything is sent; a failure names the path and why. */

function problem(out: string): string {
  try {
    prepareOutFolder(out);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const issue = (err as ConfigError).issues[0];
    expect(issue?.where).toBe('--out');
    return issue?.message ?? '';
  }
  throw new Error(`${out} was accepted`);
}

describe('prepareOutFolder', () => {
  it('creates missing folders and leaves no test file behind', async () => {
    const dir = await tempDir('outfolder');
    const out = join(dir, 'a', 'b', 'c');
    prepareOutFolder(out);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(out)).toEqual([]);
  });

  it('fails at once under /proc (a recursive mkdir there never returns)', () => {
    // Real time: a real mkdir under /proc, the kernel's answer.
    const started = Date.now();
    expect(problem('/proc/nope/reports')).toMatch(/\/proc\/nope\/reports: ENOENT/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('names a file in the way of a folder', async () => {
    const dir = await tempDir('outfolder');
    await writeFile(join(dir, 'file'), 'x');
    expect(problem(join(dir, 'file', 'out'))).toMatch(/ENOTDIR/);
    expect(problem(join(dir, 'file'))).toMatch(/ENOTDIR .*a file is in the way/);
  });
});
