/** How a value the user wrote reads in an error message: `"fast"`, `12`, `a list`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (typeof value === 'string') {
    const cut = value.length > 40 ? `${value.slice(0, 37)}...` : value;
    return JSON.stringify(cut);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return typeof value;
}
