/**
 * The longest line the terminal summary prints: three rows of an 80-column terminal. A line past
 * it (a list of ids, a long message) scrolls the verdict out of sight and cannot be read whole.
 */
export const TERMINAL_LINE_MAX = 240;
const WRAP_AT = 100;

/** A command to paste: cut, never wrapped (a wrapped curl does not run); the reports hold it whole. */
const PASTE = /^\s*(repro|request): /;

function wrapped(line: string): string[] {
  const indent = `${/^\s*/.exec(line)?.[0] ?? ''}  `;
  const out: string[] = [];
  let current = '';
  for (const word of line.trimStart().split(' ')) {
    const next = current === '' ? word : `${current} ${word}`;
    const room = WRAP_AT - (out.length === 0 ? indent.length - 2 : indent.length);
    if (next.length > room && current !== '') {
      out.push(current);
      current = word;
    } else current = next;
  }
  out.push(current);
  return out.map((text, i) =>
    (i === 0 ? `${indent.slice(2)}${text}` : `${indent}${text}`).slice(0, TERMINAL_LINE_MAX),
  );
}

/** One summary line as the terminal shows it: itself, wrapped prose, or a cut command. */
export function terminalLines(line: string): string[] {
  if (line.length <= TERMINAL_LINE_MAX) return [line];
  if (PASTE.test(line))
    return [`${line.slice(0, TERMINAL_LINE_MAX - 40)}… (whole in summary.md and report.html)`];
  return wrapped(line);
}
