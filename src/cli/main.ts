#!/usr/bin/env node
import { ExitCode } from '../core/exit-code.js';
import { runCli } from './cli.js';
import { steadyHeapGrowth } from './heap-growth.js';
import { runForcedExitHooks } from './run/forced-exit.js';

// Before the first run allocates: fewer, evenly spaced full collections (see heap-growth.ts).
steadyHeapGrowth(process.execArgv);

// A closed pipe (`jobstorm ... | head`) is the reader's choice, not our failure.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

const controller = new AbortController();
let interrupts = 0;
// SIGTERM (a CI job's timeout, `kill`, a container stop) is an interrupt like Ctrl-C: the run
// still writes its report, and a second signal of either kind quits at once.
const onSignal = (signal: NodeJS.Signals): void => {
  interrupts++;
  if (interrupts === 1) {
    // First signal: commands stop arrivals, drain and still write their reports.
    controller.abort(new Error('interrupted'));
    process.stderr.write(
      `\njobstorm: ${signal === 'SIGTERM' ? 'terminated (SIGTERM)' : 'interrupted'}; finishing up (Ctrl-C again to quit at once)\n`,
    );
  } else {
    // Second: quit now, but keep what was exchanged (records flushed, reports if they fit) and
    // leave no worker process behind.
    for (const err of runForcedExitHooks())
      process.stderr.write(`jobstorm: while quitting: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(ExitCode.Interrupted);
  }
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  interrupt: controller.signal,
  // The live line goes to stderr, so stderr decides: `run ... > out.txt` still shows it, `2>&1 | tee` does not.
  isTty: process.stderr.isTTY,
  liveLine: (text) => process.stderr.write(`\r\x1b[K${text}`),
  columns: () => (process.stderr.isTTY ? process.stderr.columns : undefined),
})
  .then((code) => {
    process.exitCode = code;
  })
  .catch((err: unknown) => {
    process.stderr.write(
      `jobstorm: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = ExitCode.Aborted;
  });
