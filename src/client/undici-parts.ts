import { createRequire } from 'node:module';
import type * as Undici from 'undici';

/**
 * The parts of undici the runner uses, loaded from their own files. undici's index loads all of
 * undici (fetch, WebSocket, cookies, mocks, interceptors) and reaches into Node's own bundled copy:
 * on a short run that was about a tenth of jobstorm's CPU, for nothing the runner calls. The
 * runner only dispatches on a Pool, so the request helpers the index adds to every dispatcher are
 * not needed. Should a later undici move a file, the part comes from the index as before.
 */
const load = createRequire(import.meta.url);

function part<T>(file: string, fromIndex: (index: typeof Undici) => T): T {
  try {
    return load(`undici/lib/${file}`) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    return fromIndex(load('undici') as typeof Undici);
  }
}

export const Pool = part<typeof Undici.Pool>('dispatcher/pool.js', (u) => u.Pool);
export type Pool = Undici.Pool;
export const buildConnector = part<typeof Undici.buildConnector>('core/connect.js', (u) => u.buildConnector);
export const errors = part<typeof Undici.errors>('core/errors.js', (u) => u.errors);
