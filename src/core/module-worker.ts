import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on a sibling module given by its base name (`./x` → `x.js` or `x.ts`).
 * From compiled code the sibling `.js` runs as is. From TypeScript sources (vitest, tsx) there is
 * no `.js` beside the caller, so the worker registers tsx's loader first, then imports the `.ts`.
 */
export function spawnModuleWorker(callerUrl: string, baseName: string, workerData: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`${baseName}.js`, callerUrl), { workerData });
  const entry = new URL(`${baseName}.ts`, callerUrl).href;
  // tsx's ESM API: its CommonJS twin, required from an eval'd worker, fails to find its own
  // ESM half ("Cannot find module .../tsx/dist/esm/api/esm/index.mjs").
  const bootstrap = [
    `import(${JSON.stringify(tsxEsmApi(callerUrl))})`,
    `  .then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`,
    '  .catch((err) => {',
    "    require('node:worker_threads').parentPort.postMessage({ type: 'error', message: String((err && err.stack) || err) });",
    '  });',
  ].join('\n');
  return new Worker(bootstrap, { eval: true, workerData });
}

/** File URL of tsx's ESM API (`tsx/esm/api`, import condition), read from tsx's own exports map. */
function tsxEsmApi(from: string): string {
  const pkgPath = createRequire(from).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports?: Record<string, { import?: { default?: string } } | string> };
  const entry = pkg.exports?.['./esm/api'];
  const rel = typeof entry === 'object' ? entry.import?.default : undefined;
  if (rel === undefined) throw new Error("cannot find tsx/esm/api in tsx's package.json; install tsx to run worker threads from TypeScript");
  return pathToFileURL(join(dirname(pkgPath), rel)).href;
}
