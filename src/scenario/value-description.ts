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

/** A value of a field that can hold a secret: its kind, never its text. */
export function describeHiddenValue(value: unknown): string {
  if (typeof value === 'string') return 'a string (not shown: the field can hold a secret)';
  if (typeof value === 'number' || typeof value === 'bigint')
    return 'a number (not shown: the field can hold a secret)';
  return describeValue(value);
}

/** Leaves shorter than this are not searched for in free text: "1" would cut up "at least 1". */
const SHORTEST_HIDDEN = 4;
/** Bounds the walk of a value that holds secrets (iterative: no recursion on user data). */
const MOST_LEAVES = 1000;

function leaves(value: unknown): (string | number | bigint)[] {
  const out: (string | number | bigint)[] = [];
  const stack: unknown[] = [value];
  let visited = 0;
  while (stack.length > 0 && visited++ < MOST_LEAVES) {
    const v = stack.pop();
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint') out.push(v);
    else if (typeof v === 'object' && v !== null) {
      const children: readonly unknown[] = Array.isArray(v) ? v : Object.values(v);
      for (const child of children.slice(0, MOST_LEAVES)) stack.push(child);
    }
  }
  return out;
}

/**
 * `message` about a field that can hold a secret, with `value` (the field's value) taken out:
 * "got <value>" becomes "got <its kind>", and any other appearance of a string or number in the
 * value long enough to be a secret is replaced as well. Replacements go through markers, so one
 * leaf's text never cuts into another's replacement.
 */
export function hideValue(message: string, value: unknown): string {
  const hidden: string[] = [];
  const mark = (text: string): string => `\uE000${String(hidden.push(text) - 1)}\uE001`;
  let out = message;
  for (const leaf of leaves(value)) {
    const shown = describeValue(leaf);
    out = out.split(`got ${shown}`).join(`got ${mark(describeHiddenValue(leaf))}`);
    // The whole text, and the cut form a long string is shown in (without its quotes).
    for (const text of typeof leaf === 'string' ? [leaf, shown.slice(1, -1)] : [String(leaf)]) {
      if (text.length >= SHORTEST_HIDDEN) out = out.split(text).join(mark(describeHiddenValue(leaf)));
    }
  }
  return out.replace(/\uE000(\d+)\uE001/g, (_m, i: string) => hidden[Number(i)] ?? '');
}
