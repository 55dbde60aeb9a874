// The modules of a mutation run (test/mutation/modules.json) and which source file belongs to which:
// shared by the run, the per-module score and the test that keeps the configuration valid.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { URL, fileURLToPath } from 'node:url';

/** @typedef {{ mutate: string[]; break: number; why?: string; tests?: string[]; testsWhy?: string }} MutationModule */

/** @returns {Record<string, MutationModule>} */
export function readModules() {
  return JSON.parse(readFileSync(new URL('../test/mutation/modules.json', import.meta.url), 'utf8'));
}

/**
 * A mutate glob as Stryker reads it (`**` any folders, `*` any name part), as a regular expression
 * over a path relative to the repository root.
 * @param {string} glob
 */
export function globToRegExp(glob) {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (glob.startsWith('**/', i)) {
      out += '(?:.*/)?';
      i += 2;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += (c ?? '').replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/**
 * Does the module take this file: matched by one of its globs and by none of its `!` globs?
 * @param {MutationModule} module
 * @param {string} file relative to the repository root, with `/`
 */
export function moduleTakes(module, file) {
  const take = module.mutate.filter((g) => !g.startsWith('!'));
  const skip = module.mutate.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  return take.some((g) => globToRegExp(g).test(file)) && !skip.some((g) => globToRegExp(g).test(file));
}

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every TypeScript source a module could take: src/ and contracts/, relative to the root, with `/`. */
export function sourceFiles() {
  return ['src', 'contracts'].flatMap((dir) =>
    readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => relative(root, join(e.parentPath, e.name)).replaceAll('\\', '/'))
      .sort(),
  );
}

/**
 * The files the named modules mutate, listed one by one for Stryker's `mutate`: its globs are one
 * list read in order, so a module's `!` glob would also take a file away from a module before it.
 * @param {Record<string, MutationModule>} modules
 * @param {string[]} names
 */
export function filesOf(modules, names) {
  return sourceFiles().filter((f) => names.some((n) => moduleTakes(modules[n], f)));
}
