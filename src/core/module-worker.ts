import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on a sibling module given by its base name (`./x` → `x.js` or `x.ts`).
 * From compiled code the sibling `.js` runs as is. From TypeScript sources (vitest, tsx) there is
 * no `.js` beside the caller, so the worker imports tsx's ESM API, registers its loader, then
 * imports the `.ts`.
 */
export function spawnModuleWorker(callerUrl: string, baseName: string, workerData: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`${baseName}.js`, callerUrl), { workerData });
  const entry = new URL(`${baseName}.ts`, callerUrl).href;
  const bootstrap = [
    `import(${JSON.stringify(tsxEsmApi(callerUrl))})`,
    `  .then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`,
    '  .catch((err) => {',
    "    require('node:worker_threads').parentPort.postMessage({ type: 'error', message: String((err && err.stack) || err) });",
    '  });',
  ].join('\n');
  return new Worker(bootstrap, { eval: true, workerData });
}

/** The file URL of tsx's ESM API, read from its package.json (its CommonJS build hooks only require). */
function tsxEsmApi(from: string): string {
  const require = createRequire(from);
  const pkgPath = require.resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as {
    exports?: Record<string, { import?: { default?: string } } | string>;
  };
  const entry = pkg.exports?.['./esm/api'];
  const rel = typeof entry === 'object' ? entry.import?.default : undefined;
  if (rel === undefined)
    throw new Error(
      "cannot find tsx/esm/api in tsx's package.json; install tsx to run workers from TypeScript",
    );
  return pathToFileURL(join(dirname(pkgPath), rel)).href;
}
