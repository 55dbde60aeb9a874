import { parseDuration } from './duration.js';

/*
 * Readers of the raw document (before the schema), for rules that run even when the schema found
 * other problems. Each returns nothing useful for a value of the wrong type, which the schema reports.
 */

export type Raw = Readonly<Record<string, unknown>>;

export function isRecord(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A duration as written (a duration string, or 0), in ms; a bare number has no reading here. */
export function ms(v: unknown): number | undefined {
  if (typeof v === 'number') return v === 0 ? 0 : undefined;
  return typeof v === 'string' ? parseDuration(v) : undefined;
}

export function list(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}
