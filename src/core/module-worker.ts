import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on a sibling module given by its base name (`./x` → `x.js` or `x.ts`).
 * From compiled code the sibling `.js` runs as is. From TypeScript sources (vitest, tsx) there is
 * no `.js` beside the caller, so the worker registers tsx's loader first, then imports the `.ts`.
 */
export function spawnModuleWorker(callerUrl: string, baseName: string, workerData: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`${baseName}.js`, callerUrl), { workerData });
  const tsxApi = createRequire(callerUrl).resolve('tsx/esm/api');
  const entry = new URL(`${baseName}.ts`, callerUrl).href;
  const bootstrap = [
    `const { register } = require(${JSON.stringify(tsxApi)});`,
    'register();',
    `import(${JSON.stringify(entry)}).catch((err) => {`,
    "  require('node:worker_threads').parentPort.postMessage({ type: 'error', message: String((err && err.stack) || err) });",
    '});',
  ].join('\n');
  return new Worker(bootstrap, { eval: true, workerData });
}
