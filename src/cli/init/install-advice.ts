import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JOBSTORM_VERSION } from '../../version.js';

/**
 * Where this jobstorm runs from, as seen from the scenario `init` wrote: installed in that project
 * (`npx jobstorm` works there), a checkout (the package is on no registry: it must be installed
 * from the checkout first, or run by its path), or installed elsewhere (globally, another project).
 */
export type Installation =
  { kind: 'project' } | { kind: 'checkout'; root: string } | { kind: 'elsewhere'; root: string };

/** The folder of the jobstorm package this code runs from: the nearest package.json named jobstorm. */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string | undefined {
  for (let dir = dirname(from); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === 'jobstorm') return dir;
    } catch {
      // No package.json here (or not JSON): keep climbing.
    }
  }
  return undefined;
}

/** True when `import 'jobstorm'` resolves from the file's folder, as `npx jobstorm` and a TS scenario need. */
export function jobstormResolvesFrom(file: string): boolean {
  try {
    createRequire(resolve(file)).resolve('jobstorm');
    return true;
  } catch {
    return false;
  }
}

export function installationFor(file: string, root: string | undefined = packageRoot()): Installation {
  if (jobstormResolvesFrom(file) || root === undefined) return { kind: 'project' };
  return root.split(sep).includes('node_modules') ? { kind: 'elsewhere', root } : { kind: 'checkout', root };
}

/** The package as `npm pack` names it in the checkout. */
export function tarballOf(root: string): string {
  return join(root, `jobstorm-${JOBSTORM_VERSION}.tgz`);
}

/**
 * How to make the printed commands true in this project; nothing when they already are. A
 * TypeScript scenario imports jobstorm, so for it running the checkout by its path is not enough.
 */
export function installLines(i: Installation, imports: boolean): string[] {
  if (i.kind === 'project') return [];
  if (i.kind === 'elsewhere')
    return [
      `jobstorm runs from ${i.root}, not from this project; install it here so npx finds it:`,
      `  npm i -D jobstorm@file:${i.root}`,
    ];
  const install = [
    `jobstorm is on no package registry, so npx finds it only where it is installed. Install it`,
    `into this project from the checkout at ${i.root}${imports ? ' (the scenario imports it)' : ''}:`,
    `  (cd ${i.root} && npm pack)`,
    `  npm i -D jobstorm@file:${tarballOf(i.root)}`,
  ];
  if (imports) return install;
  return [
    ...install,
    `or, without installing, run it by its path: node ${join(i.root, 'dist/cli/main.js')} in`,
    `place of npx jobstorm below (or npm link in the checkout, then npm link jobstorm here).`,
  ];
}
