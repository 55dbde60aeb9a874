/**
 * Records keep response bodies for the checks, but a 10 MB output must not be kept per request:
 * strings longer than `max` are cut and replaced by a marker that keeps their length, so schema
 * checks still see a string and size checks still see the size.
 */
export interface TrimmedString {
  $trimmed: true;
  length: number;
  head: string;
}

export function isTrimmedString(v: unknown): v is TrimmedString {
  return typeof v === 'object' && v !== null && (v as { $trimmed?: unknown }).$trimmed === true;
}

export function trimBody(value: unknown, max = 256, depth = 0): unknown {
  if (typeof value === 'string') {
    return value.length > max ? { $trimmed: true, length: value.length, head: value.slice(0, 64) } : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[depth]';
  if (Array.isArray(value)) {
    // Long arrays (stream chunks) keep their length and items; each item is trimmed in turn.
    return value.map((v) => trimBody(v, max, depth + 1));
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = trimBody(v, max, depth + 1);
  return out;
}
