import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import { CHECK_OPTIONS } from '../run/check-options.js';
import { KNOWN_OPTIONS } from '../known-flags.js';
import { DASHBOARD_OPTIONS } from '../run/dashboard-flags.js';
import { EXPORT_OPTIONS } from '../run/export-options.js';
import { withTargetOptions } from '../run/target-options.js';
import { TOGETHER_OPTIONS } from '../run/together-options.js';
import type { RunArgs } from './run-args.js';

/** The `run` command's flags; what it does (run-action.ts) loads only when it runs, so start-up pays for one command. */
export const runCommand: JobstormCommand<RunArgs> = {
  command: 'run <scenario>',
  describe: 'Run a scenario against a target (default: the embedded emulator)',
  builder: (y: Argv) =>
    withTargetOptions(y)
      .positional('scenario', {
        type: 'string',
        demandOption: true,
        describe: 'scenario file (.yaml, .json, .ts)',
      })
      .option('auth', {
        choices: ['bearer', 'bare', 'none'] as const,
        describe:
          'Authorization header form (overrides the scenario); none: a target without authentication, no key sent',
      })
      .option('duration', {
        type: 'string',
        describe: 'fit every phase proportionally into this time, e.g. 30s',
      })
      .option('warmup', {
        type: 'string',
        describe:
          'send and check the first part of the schedule but leave it out of the metrics and thresholds, e.g. 5s (overrides the scenario; 0s for none)',
      })
      .option('rate-scale', { type: 'number', describe: 'multiply every rate by this factor' })
      .option('shard', { type: 'string', describe: 'run shard i of n (1/n of every rate), e.g. 2/4' })
      .option('workers', { type: 'number', describe: 'run N worker threads as shards and combine them' })
      .options(TOGETHER_OPTIONS)
      .option('out', { type: 'string', describe: 'report folder (default reports/<run-id>)' })
      .option('record', { type: 'boolean', describe: 'also write records.ndjson (for jobstorm check)' })
      .option('threshold', {
        type: 'string',
        array: true,
        describe:
          'extra threshold, e.g. "p99(run) < 500ms", or held over every window: "p99(run) < 500ms over 30s" (repeatable)',
      })
      .options(CHECK_OPTIONS)
      .options(KNOWN_OPTIONS)
      .options(EXPORT_OPTIONS)
      .options(DASHBOARD_OPTIONS)
      .option('worker', {
        type: 'string',
        describe:
          'run your own worker: a command that starts one (e.g. "python3 handler.py"); the emulator scales its processes',
      })
      .option('quiet', { type: 'boolean', describe: 'no progress line and no terminal summary' })
      .option('graceful-stop', {
        type: 'string',
        describe:
          'after the last arrival, how long running iterations may take to finish before they are cut (default 30s)',
      })
      .option('preflight', {
        type: 'boolean',
        default: true,
        describe:
          'check the key, the endpoint and the routes with a few requests before the load (--no-preflight to skip)',
      }),
  examples: [
    ['$0 run scenarios/smoke.yaml', 'against the embedded emulator'],
    ['$0 run scenarios/steady-load.yaml --dashboard', 'watch it live in the browser (the URL is printed)'],
    [
      '$0 run scenarios/steady-load.yaml --target https://api.example.com/v2/abc123 --duration 30s',
      'against a real endpoint',
    ],
  ],
  run: async (args, io) => (await import('./run-action.js')).runAction.run(args, io),
};
