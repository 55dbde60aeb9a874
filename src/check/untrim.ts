import { isTrimmedString } from '../core/trim-body.js';

/**
 * Records cut long strings (see trimBody); schemas must still see a string there, so each marker
 * becomes its head. Bodies without markers are returned as they are, without copying.
 */
export function untrim(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (isTrimmedString(value)) return value.head;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const u = untrim(v);
      if (u !== v) {
        out ??= value.slice();
        out[i] = u;
      }
    }
    return out ?? value;
  }
  // for-in over own keys: no entries array per object, on a path every response body takes.
  const obj = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    if (v === null || typeof v !== 'object') continue;
    const u = untrim(v);
    if (u !== v) {
      out ??= { ...obj };
      out[k] = u;
    }
  }
  return out ?? value;
}

/** The byte length a value had before trimming (strings count their full length). */
export function jsonSize(value: unknown): number {
  if (isTrimmedString(value)) return value.length + 2;
  if (value === undefined) return 0;
  if (value === null || typeof value !== 'object') return JSON.stringify(value).length;
  if (Array.isArray(value)) return 2 + value.reduce<number>((n, v) => n + jsonSize(v) + 1, 0);
  let n = 2;
  for (const [k, v] of Object.entries(value)) n += k.length + 4 + jsonSize(v);
  return n;
}
