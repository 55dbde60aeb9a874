import type { Argv } from 'yargs';
import type { CliIo } from '../command.js';
import { COMMANDS } from '../commands.js';

/** One flag or positional argument as a command's yargs builder declares it. */
export interface FlagSpec {
  name: string;
  positional: boolean;
  type?: string;
  choices?: readonly unknown[];
  default?: unknown;
  describe?: string;
  array?: boolean;
  demandOption?: boolean | string;
}

/** A command as its builder declares it: usage, what it does, its flags and examples. */
export interface CommandSpec {
  command: string;
  describe: string;
  flags: FlagSpec[];
  examples: [string, string][];
}

type Builder = (y: Argv) => unknown;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function flag(name: unknown, options: unknown, positional: boolean): FlagSpec {
  const o = isRecord(options) ? options : {};
  return {
    name: String(name),
    positional,
    ...(typeof o.type === 'string' ? { type: o.type } : {}),
    ...(Array.isArray(o.choices) ? { choices: o.choices as unknown[] } : {}),
    default: o.default,
    ...(typeof o.describe === 'string' ? { describe: o.describe } : {}),
    ...(o.array === true ? { array: true } : {}),
    demandOption: o.demandOption as boolean | string | undefined,
  };
}

/**
 * An Argv that writes down what a builder declares (options, positionals, examples, commands) and
 * lets every other call through as a no-op, so the reference reads the very objects yargs gets.
 */
function recorder(spec: CommandSpec, commands: CommandSpec[]): Argv {
  const calls: Record<string, (...args: unknown[]) => void> = {
    option: (name, options) => spec.flags.push(flag(name, options, false)),
    options: (all) => {
      if (isRecord(all))
        for (const [name, options] of Object.entries(all)) spec.flags.push(flag(name, options, false));
    },
    positional: (name, options) => spec.flags.push(flag(name, options, true)),
    example: (command, description) =>
      spec.examples.push([String(command), typeof description === 'string' ? description : '']),
    command: (command, describe, builder) => {
      const sub: CommandSpec = {
        command: String(command),
        describe: String(describe),
        flags: [],
        examples: [],
      };
      if (typeof builder === 'function') (builder as Builder)(recorder(sub, commands));
      commands.push(sub);
    },
  };
  const argv: Argv = new Proxy({} as Argv, {
    get:
      (_target, property) =>
      (...args: unknown[]) => {
        if (typeof property === 'string') calls[property]?.(...args);
        return argv;
      },
  });
  return argv;
}

const SILENT_IO: CliIo = {
  out: () => undefined,
  err: () => undefined,
  env: {},
  interrupt: new AbortController().signal,
  isTty: false,
};

/** Every command of the CLI with the flags its yargs builder declares, in `--help` order. */
export function commandSpecs(): CommandSpec[] {
  const commands: CommandSpec[] = [];
  const root: CommandSpec = { command: '', describe: '', flags: [], examples: [] };
  const argv = recorder(root, commands);
  for (const cmd of COMMANDS) cmd.register(argv, SILENT_IO, () => undefined);
  // The examples as each command declares them, not as --help lays them out for 80 columns.
  for (const spec of commands) {
    const declared = COMMANDS.find((c) => c.command === spec.command)?.examples;
    if (declared) spec.examples = declared.map(([command, describe]) => [command, describe]);
  }
  return commands;
}
