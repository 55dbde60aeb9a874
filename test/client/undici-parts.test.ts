import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { buildConnector, errors, Pool } from '../../src/client/undici-parts.js';

/**
 * The runner loads undici's parts from their own files (src/client/undici-parts.ts). They must be
 * the very objects undici's index exports, or an error thrown by undici would fail our
 * `instanceof` tests and a Pool would miss what the index sets up.
 */
describe('undici parts', () => {
  it('are the objects the index exports, read from their own files', () => {
    expect(Pool).toBe(undici.Pool);
    expect(buildConnector).toBe(undici.buildConnector);
    expect(errors).toBe(undici.errors);
    const load = createRequire(import.meta.url);
    expect(load.resolve('undici/lib/dispatcher/pool.js')).toMatch(
      /undici[/\\]lib[/\\]dispatcher[/\\]pool\.js$/,
    );
  });

  it("load none of undici's index (the built module, in a fresh process)", () => {
    const parts = new URL('../../dist/src/client/undici-parts.js', import.meta.url).href;
    const script = [
      `await import(${JSON.stringify(parts)});`,
      "const { createRequire } = await import('node:module');",
      'const cache = createRequire(import.meta.url).cache;',
      "console.log(JSON.stringify(Object.keys(cache).filter((k) => k.includes('undici'))));",
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const loaded = JSON.parse(out) as string[];
    expect(loaded.some((f) => /undici[/\\]lib[/\\]dispatcher[/\\]pool\.js$/.test(f))).toBe(true);
    expect(loaded.filter((f) => /undici[/\\]index\.js$/.test(f))).toEqual([]);
  });
});
