import { closeSync, fsyncSync, mkdirSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from '../../core/config-error.js';

/**
 * Creates the report folder and proves it takes a file (written, fsynced, removed) before the
 * first request, so a run never sends its whole load only to lose the results. Folders are made
 * one level at a time: a recursive mkdir under /proc spins forever instead of failing.
 */
export function prepareOutFolder(out: string, where = '--out'): void {
  try {
    makeFolders(out);
    const probe = join(out, `.jobstorm-write-test-${String(process.pid)}`);
    const fd = openSync(probe, 'wx');
    try {
      writeSync(fd, 'jobstorm write test\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      unlinkSync(probe);
    }
  } catch (err) {
    throw new ConfigError([{ where, message: `cannot write reports to ${out}: ${reasonOf(err)}` }]);
  }
}

function makeFolders(path: string): void {
  const missing: string[] = [];
  let p = path;
  for (;;) {
    try {
      if (!statSync(p).isDirectory())
        throw Object.assign(new Error(`${p} is not a folder`), { code: 'ENOTDIR' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const parent = dirname(p);
      if (parent === p) throw err;
      missing.push(p);
      p = parent;
    }
  }
  for (const dir of missing.reverse()) mkdirSync(dir);
}

function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const why = code ? (REASONS[code] ?? e.message) : String(err);
  return code ? `${code} (${why})${e.path && !why.includes(e.path) ? ` at ${e.path}` : ''}` : why;
}

const REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a file is in the way where a folder is expected',
  ENOENT: 'the folder cannot be created there',
  EEXIST: 'a file is in the way',
};
