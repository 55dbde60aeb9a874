/**
 * The fields of one CSV line (RFC 4180 quoting: `"a, b"`, `""` for a quote inside one). A trace is
 * read a line at a time, so a quoted field may not span lines: an unclosed quote is an error here,
 * where src/scenario/csv.ts (which holds a whole data feed) lets it run on. That file is out of this
 * layer's reach (DESIGN.md: src/trace imports only src/core), hence this small twin.
 */
export function csvFields(text: string): string[] | { problem: string } {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  if (quoted) return { problem: 'a quoted field is never closed on this line (a trace row is one line)' };
  fields.push(field);
  return fields;
}
