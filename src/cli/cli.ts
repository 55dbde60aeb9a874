import yargs, { type Argv } from 'yargs';
import { ConfigError } from '../core/config-error.js';
import { ExitCode } from '../core/exit-code.js';
import { JOBSTORM_VERSION } from '../version.js';
import type { CliIo } from './command.js';
import { COMMANDS } from './commands.js';
import { usageHints } from './usage-hint.js';

/**
 * Parses argv and runs one command, returning its exit code. Usage errors (unknown command or
 * flag, missing argument) are exit 2; a ConfigError lists every problem and is exit 2.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let pending: (() => Promise<ExitCode>) | undefined;
  let usageError: string | undefined;
  const parser = yargs([...argv])
    .scriptName('jobstorm')
    // jobstorm's own text is English: yargs' headings in the user's language would mix the two
    // (and the bundled CLI has no yargs locale files to read them from).
    .locale('en')
    .version(JOBSTORM_VERSION)
    .strict()
    .demandCommand(1, 'Give a command; see jobstorm --help.')
    .recommendCommands()
    .wrap(Math.min(100, process.stdout.columns || 100))
    .epilogue(
      'Exit codes: 0 passed, 1 failed, 2 usage or configuration error (nothing sent), 3 target unreachable, 4 inconclusive, 130 interrupted.',
    )
    .fail((msg, err: Error | undefined) => {
      if (err) throw err;
      usageError = msg;
    })
    .exitProcess(false)
    .help();
  skipHelpCache(parser);
  for (const cmd of COMMANDS) {
    cmd.register(parser, io, (run) => {
      pending = run;
    });
  }
  let helpText: string | undefined;
  try {
    await parser.parseAsync([...argv], {}, (_err, _argv, output) => {
      if (output) helpText = output;
    });
    if (usageError !== undefined) {
      const hints = usageHints(usageError, argv, COMMANDS);
      io.err(`${helpText ?? ''}\n\n${[usageError, ...hints].join('\n')}`.trim());
      return ExitCode.Usage;
    }
    if (helpText) io.out(helpText);
    return pending ? await pending() : ExitCode.Ok;
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(
        `configuration error (${String(err.issues.length)} problem${err.issues.length === 1 ? '' : 's'}):`,
      );
      for (const issue of err.issues) io.err(`  ${issue.where}: ${issue.message}`);
      return ExitCode.Usage;
    }
    throw err;
  }
}

/** The part of yargs' internals `skipHelpCache` reaches; absent in another version, it does nothing. */
interface YargsInternals {
  getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } | undefined;
}

/**
 * yargs renders a command's whole help before it runs the command, in case the command then asks
 * for it (`showHelp`). Ours never do: a handler only hands back what to run, and usage errors go
 * through `.fail()`. Rendering the help of `run` and its many options cost 60-100 ms of CPU on
 * every start (a CPU profile of `jobstorm run`), which a 10 s run at 1,000 arrivals/s pays in its
 * whole-process CPU (issue 17).
 */
export function skipHelpCache(parser: Argv): void {
  const usage = (parser as unknown as YargsInternals).getInternalMethods?.()?.getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}
