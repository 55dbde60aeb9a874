import type { Argv } from 'yargs';
import { closestName } from '../report/closest-name.js';

/** What a hint needs to know of one command: its name, its usage and its flags. */
export interface CommandNames {
  command: string;
  describe: string;
  flags(): readonly string[];
}

/**
 * Words a newcomer types for one of our commands, from other tools (`npm start`, `k6 run`, a
 * mock server's `serve`): edit distance alone cannot find `run` from `start`.
 */
const COMMAND_WORDS: Readonly<Record<string, string>> = {
  start: 'run',
  test: 'run',
  load: 'run',
  bench: 'run',
  serve: 'emulate',
  server: 'emulate',
  mock: 'emulate',
  new: 'init',
  create: 'init',
  diff: 'compare',
};

/** The part of yargs' Argv `optionNames` reads; absent in another version, there are no flag hints. */
interface OptionsReader {
  getOptions?: () => { key?: Record<string, unknown> } | undefined;
}

/** The flags a command's builder declares, read off a throwaway parser. */
export function optionNames(built: Argv): string[] {
  return Object.keys((built as unknown as OptionsReader).getOptions?.()?.key ?? {}).filter((k) => k !== '$0');
}

function nameOf(c: CommandNames): string {
  return c.command.split(' ')[0] ?? c.command;
}

function commandHint(word: string, commands: readonly CommandNames[]): string {
  const names = commands.map(nameOf);
  const guess = COMMAND_WORDS[word.toLowerCase()] ?? closestName(word, names);
  const c = commands.find((x) => nameOf(x) === guess);
  if (!c) return `"${word}" is not a command; the commands are ${names.join(', ')}`;
  return `"${word}" is not a command; did you mean jobstorm ${nameOf(c)}? (jobstorm ${c.command}: ${c.describe})`;
}

function flagHint(flag: string, command: CommandNames | undefined): string {
  const where = command ? `jobstorm ${nameOf(command)}` : 'jobstorm';
  const known = [...(command?.flags() ?? []), 'help', 'version'];
  const guess = closestName(flag, known);
  return guess === undefined
    ? `--${flag} is not a flag of ${where}; see ${where} --help`
    : `--${flag} is not a flag of ${where}; did you mean --${guess}?`;
}

/** `--name`, `--name=value` and `-n` forms of an unknown name on the command line. */
function givenAsFlag(name: string, argv: readonly string[]): boolean {
  return argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`) || a === `-${name}`);
}

/**
 * Did-you-mean lines for yargs' "Unknown argument(s): ..." message: the nearest flag of the
 * command given, or the command meant. Nothing for any other usage error.
 */
export function usageHints(
  message: string,
  argv: readonly string[],
  commands: readonly CommandNames[],
): string[] {
  const listed = /^Unknown arguments?: (.+)$/m.exec(message)?.[1];
  if (listed === undefined) return [];
  const command = commands.find((c) => nameOf(c) === argv[0]);
  const hints: string[] = [];
  for (const name of listed.split(', ')) {
    // yargs names a mistyped `--rate-scal` twice, as `rate-scal` and `rateScal`: the one given counts.
    if (givenAsFlag(name, argv)) hints.push(flagHint(name, command));
    else if (name === argv[0]) hints.push(commandHint(name, commands));
  }
  return hints;
}
