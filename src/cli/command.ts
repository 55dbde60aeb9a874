import yargs, { type Argv } from 'yargs';
import { withExamples, type HelpExample } from './help-example.js';
import { optionNames } from './usage-hint.js';
import type { ExitCode } from '../core/exit-code.js';
import { systemClock, type EpochClock } from '../core/clock.js';
import type { GeneratorProbe } from '../runner/generator-watch.js';

/** What a command may use of the outside world; only src/cli/ builds one. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted on the first SIGINT. */
  interrupt: AbortSignal;
  /**
   * True when stderr, where progress goes, is a terminal: a live progress line instead of a plain
   * line each second.
   */
  isTty: boolean;
  /** Rewrites the one live status line on a terminal ('' clears it). */
  liveLine?(text: string): void;
  /** The terminal's width now (it can be resized while a run goes); undefined when unknown. */
  columns?(): number | undefined;
  /**
   * The clock a command's search runs on; the system clock when absent (main.ts gives none). An
   * in-process caller hands a manual one, with `generatorProbe`: a manual clock's seconds are not
   * the real loop's, so what the loop did is said instead of read.
   */
  clock?: EpochClock;
  generatorProbe?: () => GeneratorProbe;
}

/** The clock a command runs on: the in-process caller's, else the system's (main.ts hands none). */
export function clockOf(io: CliIo): EpochClock {
  return io.clock ?? systemClock;
}

/**
 * One CLI command. `run` returns the exit code instead of calling process.exit, so commands can be
 * tested in-process and main.ts stays the only place that ends the process.
 */
export interface JobstormCommand<A = object> {
  command: string;
  describe: string;
  builder(y: Argv): Argv<A>;
  /** Shown under `--help` (and by the reference pages), each on lines of their own. */
  examples?: readonly HelpExample[];
  run(args: A, io: CliIo): Promise<ExitCode>;
}

/** A command with its argument type erased, so commands of different shapes share one list. */
export interface RegisteredCommand {
  command: string;
  describe: string;
  /** The command's flags, for did-you-mean hints; builds its parser, so only after a usage error. */
  flags(): readonly string[];
  /** Its `--help` examples, as the command declares them (reference pages read them here). */
  examples: readonly HelpExample[];
  /**
   * `chosen` receives the command to run, not its result: yargs checks unknown flags only after a
   * command's handler was called, so the command runs once parsing succeeded as a whole (a
   * mistyped flag is exit 2 with nothing sent, never an error after the load).
   */
  register(y: Argv, io: CliIo, chosen: (run: () => Promise<ExitCode>) => void): Argv;
}

export function registered<A>(cmd: JobstormCommand<A>): RegisteredCommand {
  return {
    command: cmd.command,
    describe: cmd.describe,
    flags: () => optionNames(cmd.builder(yargs([]))),
    examples: cmd.examples ?? [],
    register: (y, io, chosen) =>
      y.command(
        cmd.command,
        cmd.describe,
        (b) => withExamples(cmd.builder(b), cmd.examples ?? []),
        (args) => {
          chosen(() => cmd.run(args as A, io));
        },
      ),
  };
}
