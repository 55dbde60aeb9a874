import { parseDuration } from './duration.js';

/*
 * Readers of the raw document (before the schema), for rules that run even when the schema found
 * other problems. Each returns nothing useful for a value of the wrong type, which the schema reports.
 */

export type Raw = Readonly<Record<string, unknown>>;

export function isRecord(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A duration as written (number of ms or a duration string), in ms. */
export function ms(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  return typeof v === 'string' ? parseDuration(v) : undefined;
}

export function list(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}
