import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let assets: { script: string; style: string } | undefined;

/** uPlot (MIT, © Leon Sorokin), read once and inlined whole, so a page needs nothing from the network. */
export function uplotAssets(): { script: string; style: string } {
  if (!assets) {
    const require = createRequire(import.meta.url);
    const dist = dirname(require.resolve('uplot'));
    assets = { script: readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'), style: readFileSync(join(dist, 'uPlot.min.css'), 'utf8') };
  }
  return assets;
}

/** A CSP source allowing exactly this inline script or style. */
export function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** JSON inside a script block must not be able to close it. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}
