import type { Argv } from 'yargs';

/** One example of a command's `--help`: the command line (`$0` for jobstorm) and what it shows. */
export type HelpExample = readonly [command: string, describe: string];

/**
 * Longest line of an example: 80 columns less yargs' indent and right padding. yargs gives a
 * described example's command only half the width and wraps it mid-command; an example without a
 * description gets the whole line, so the description goes on a comment line of its own above it.
 */
const LINE = 76;
const CONTINUED = ' \\';

/** Words of a command line, a quoted argument kept whole. */
function wordsOf(command: string): string[] {
  return command.match(/"[^"]*"|\S+/g) ?? [];
}

/** A flag with its values: the units a long command is broken between, never inside one. */
function unitsOf(words: readonly string[]): string[] {
  const units: string[] = [];
  for (const w of words) {
    const last = units.length - 1;
    if (w.startsWith('-') || last < 0) units.push(w);
    else units[last] = `${units[last] ?? ''} ${w}`;
  }
  return units;
}

/** The command on as many lines as it needs, each ended by a shell continuation but the last. */
export function exampleLines(command: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const unit of unitsOf(wordsOf(command.replace(/\$0/g, 'jobstorm')))) {
    if (line !== '' && line.length + 1 + unit.length + CONTINUED.length > LINE) {
      lines.push(`${line}${CONTINUED}`);
      line = unit;
    } else line = line === '' ? unit : `${line} ${unit}`;
  }
  return [...lines, line];
}

/** Adds the examples to a command's help, each a comment line and its command, never wrapped mid-command. */
export function withExamples<A>(y: Argv<A>, examples: readonly HelpExample[]): Argv<A> {
  for (const [command, describe] of examples)
    y.example([`# ${describe}`, ...exampleLines(command)].join('\n'), '');
  return y;
}
