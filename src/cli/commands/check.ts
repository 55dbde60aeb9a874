import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import { KNOWN_OPTIONS } from '../known-flags.js';
import type { CheckArgs } from './check-args.js';

/** The `check` command's flags; what it does (check-action.ts) loads only when it runs, so start-up pays for one command. */
export const checkCommand: JobstormCommand<CheckArgs> = {
  command: 'check <records>',
  describe: 'Check a saved records.ndjson against the contract',
  builder: (y: Argv) =>
    y
      .positional('records', {
        type: 'string',
        demandOption: true,
        describe: 'records.ndjson written by jobstorm run --record',
      })
      .option('openapi', {
        type: 'string',
        describe: 'also check management answers against this OpenAPI document',
      })
      .option('json', { type: 'boolean', describe: 'print the violations as JSON' })
      .option('tolerance', {
        type: 'string',
        array: true,
        describe: 'loosen or tighten a check, e.g. clockSkewMs=2000 (repeatable)',
      })
      .option('skip-check', {
        ...KNOWN_OPTIONS['skip-check'],
        describe: `${KNOWN_OPTIONS['skip-check'].describe}; beside those the run skipped`,
      })
      .option('known', {
        ...KNOWN_OPTIONS.known,
        describe: `${KNOWN_OPTIONS.known.describe}; instead of the run's own, whose entries the records carry`,
      }),
  examples: [
    ['$0 check reports/smoke-20261122T101500Z/records.ndjson', 'replay the checks offline'],
    ['$0 check reports/nightly/records.ndjson --known known.yaml', 'with the deviations your team accepts'],
  ],
  run: async (args, io) => (await import('./check-action.js')).checkAction.run(args, io),
};
