import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { installLines, installationFor, packageRoot, tarballOf } from '../../src/cli/init/install-advice.js';

/*
 * Issue 34: `jobstorm init` said `npx jobstorm`, which fails outside this repository (the package is
 * on no registry). Its advice now depends on where jobstorm runs from, and is checked to be true.
 */
const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const run = promisify(execFile);

async function freshProject(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'jobstorm-init-advice-'));
}

describe('init advice', () => {
  it('finds the package it runs from', () => {
    expect(packageRoot()).toBe(root);
  });

  it('from a checkout: install from the packed tarball, or run the checkout by its path', async () => {
    const dir = await freshProject();
    const where = installationFor(join(dir, 'load.yaml'), root);
    expect(where).toEqual({ kind: 'checkout', root });
    const lines = installLines(where, false).join('\n');
    expect(lines).toContain(`(cd ${root} && npm pack)`);
    expect(lines).toContain(`npm i -D jobstorm@file:${root}/jobstorm-`);
    expect(lines).toContain(`node ${root}/dist/cli/main.js`);
    // A TypeScript scenario imports jobstorm: running it by its path is no way out.
    expect(installLines(where, true).join('\n')).not.toContain('dist/cli/main.js');
  });

  it('the advice is true: the tarball is the one npm pack writes, the path runs', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root });
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    expect(basename(tarballOf(root))).toBe(packed?.filename);
    const bin = join(root, 'dist/cli/main.js');
    expect(existsSync(bin)).toBe(true);
    const version = await run(process.execPath, [bin, '--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('installed elsewhere (globally, another project): install it here from there', async () => {
    const dir = await freshProject();
    const elsewhere = '/usr/lib/node_modules/jobstorm';
    const where = installationFor(join(dir, 'load.yaml'), elsewhere);
    expect(where).toEqual({ kind: 'elsewhere', root: elsewhere });
    expect(installLines(where, false)).toContain(`  npm i -D jobstorm@file:${elsewhere}`);
  });

  it('installed in the project: npx jobstorm works there, nothing to add', async () => {
    const dir = await freshProject();
    await mkdir(join(dir, 'node_modules'));
    await symlink(root, join(dir, 'node_modules', 'jobstorm'), 'dir');
    const where = installationFor(join(dir, 'load.yaml'), root);
    expect(where).toEqual({ kind: 'project' });
    expect(installLines(where, true)).toEqual([]);
  });

  it('through the bin, in a fresh folder: the checkout advice with this checkout', async () => {
    const dir = await freshProject();
    const { stdout } = await run(process.execPath, [join(root, 'dist/cli/main.js'), 'init'], {
      cwd: dir,
    });
    expect(stdout).toContain(`(cd ${root} && npm pack)`);
    expect(stdout).toContain('npx jobstorm run load.yaml\n');
  });
});
