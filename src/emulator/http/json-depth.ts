/**
 * Deepest nesting of arrays and objects the emulator accepts in a JSON body. Real job inputs are
 * a few levels deep; the bound exists so that nothing downstream (JSON.stringify of an echoed
 * input, a webhook body, a job view) can run out of stack on a body that nests thousands deep.
 */
export const MAX_JSON_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * True when the JSON text nests arrays/objects deeper than `max`. One linear pass over the bytes,
 * no recursion, so it cannot itself overflow: brackets inside strings are skipped (UTF-8
 * continuation bytes are never ASCII, so scanning bytes is exact). It does not validate; a body it
 * passes may still be refused by JSON.parse.
 */
export function nestedDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_BRACKET || b === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (b === CLOSE_BRACKET || b === CLOSE_BRACE) depth--;
  }
  return false;
}
