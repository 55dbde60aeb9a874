import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';

const COMMONJS_EXTENSIONS = new Set(['.cts', '.cjs']);

/**
 * Loads a scenario module of any flavour (.ts/.mts/.cts/.js/.mjs/.cjs, in an ESM or a CommonJS
 * package) the way Node itself would, with tsx's hooks registered only while it loads.
 *
 * The hooks are the process-wide ones, not tsx's namespaced `tsImport`: a namespaced load keys
 * its module cache apart, so a CommonJS scenario's `require('jobstorm')` evaluated a second copy of
 * our dependencies next to the one already running (undici then fails with "Illegal constructor").
 * With the global hooks the scenario shares the one jobstorm instance that is loading it.
 * `.cts`/`.cjs` go through `require`: imported, Node 20 runs their own `require` calls through the
 * asynchronous ESM hooks, which cannot load an ES module synchronously ("not in cache").
 */
export async function importModule(file: string): Promise<unknown> {
  // tsx (and esbuild under it) load only for a scenario module: YAML runs start without them.
  const { register: registerCjs } = await import('tsx/cjs/api');
  if (COMMONJS_EXTENSIONS.has(extname(file).toLowerCase())) return requireModule(file, registerCjs);
  const { register: registerEsm } = await import('tsx/esm/api');
  const unregisterCjs = registerCjs();
  const unregisterEsm = registerEsm();
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    await unregisterEsm();
    unregisterCjs();
  }
}

function requireModule(file: string, registerCjs: () => () => void): unknown {
  const unregister = registerCjs();
  try {
    // Shaped like an import's namespace, so defaultExport reads both the same way.
    return { default: createRequire(file)(file) as unknown };
  } finally {
    unregister();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * The module's default export. A CommonJS module (a `.cts`, or a `.ts` in a package without
 * `"type": "module"`) arrives as `{ default: module.exports }`; when that came from `export default`
 * compiled to CommonJS, the value sits one level deeper, under `__esModule`'s `default`.
 */
export function defaultExport(mod: unknown): unknown {
  if (!isRecord(mod)) return undefined;
  const value = mod.default;
  if (isRecord(value) && value.__esModule === true) return value.default;
  return value;
}
