import type { IntRange } from '../../../contracts/queue/limits.js';

export type ParamResult = { ok: true; value: number | undefined } | { ok: false; message: string };

/**
 * An integer query parameter within its contract range (SPEC: out-of-range parameters are 400).
 * The message names the parameter, its unit and range, and what was sent. With `clamp` (the
 * policy may ask for it) an out-of-range integer is moved into the range instead.
 */
export function intParam(query: string, name: string, range: IntRange, clamp: boolean): ParamResult {
  if (query === '') return { ok: true, value: undefined };
  const raw = new URLSearchParams(query).get(name);
  if (raw === null) return { ok: true, value: undefined };
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (clamp && Number.isSafeInteger(value))
    return { ok: true, value: Math.min(range.max, Math.max(range.min, value)) };
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    return {
      ok: false,
      message: `query parameter ${name} must be an integer number of milliseconds from ${String(range.min)} to ${String(range.max)}, got ${JSON.stringify(raw)}`,
    };
  }
  return { ok: true, value };
}

/** A path segment decoded, or undefined when its percent-encoding is broken. */
export function decodeSegment(s: string): string | undefined {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** Zod issues as one line naming each field: `policy.ttl: Too small...; input: Required`. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : 'body'}: ${i.message}`)
    .join('; ');
}
