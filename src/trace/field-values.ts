/*
 * The checks every format makes of a field, with the message the user reads. A value is returned,
 * or a problem naming the field and what was found.
 */

export interface FieldProblem {
  readonly problem: string;
}

export function isProblem(value: unknown): value is FieldProblem {
  return typeof value === 'object' && value !== null && 'problem' in value;
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** A finite number >= 0: JSON's own number, or a CSV field's text. */
export function nonNegative(field: string, value: unknown): number | FieldProblem {
  if (value === undefined) return { problem: `${field}: missing (expected a number >= 0)` };
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n === 'number' && Number.isFinite(n) && n >= 0) return n;
  return { problem: `${field}: expected a number >= 0, found ${shown(value)}` };
}

/** A whole number >= 0 (token counts and lengths). */
export function count(field: string, value: unknown): number | FieldProblem {
  const n = nonNegative(field, value);
  if (isProblem(n) || Number.isInteger(n)) return n;
  return { problem: `${field}: expected a whole number >= 0, found ${shown(value)}` };
}

export function nonEmpty(field: string, value: string): string | FieldProblem {
  return value.trim() === '' ? { problem: `${field}: is empty` } : value;
}
