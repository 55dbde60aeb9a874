import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import type { KnownFileArgs } from './known-args.js';

/** The `known` command's flags; what it does (known-action.ts) loads only when it runs. */
export const knownCommand: JobstormCommand<KnownFileArgs> = {
  command: 'known <run>',
  describe: "Write a file of known deviations from a run's findings, for --known",
  builder: (y: Argv) =>
    y
      .positional('run', {
        type: 'string',
        demandOption: true,
        describe: 'a report folder (or its summary.json)',
      })
      .option('why', {
        type: 'string',
        demandOption: true,
        describe: 'why the new findings are accepted for now (a ticket, a plan); every report shows it',
      })
      .option('who', { type: 'string', demandOption: true, describe: 'who accepts them' })
      .option('expires', {
        type: 'string',
        describe:
          'when the new entries stop matching: a date (2026-03-31, through that day, UTC) or an instant with its offset',
      })
      .option('out', {
        type: 'string',
        describe: 'where to write it (default known.yaml in the run folder)',
      }),
  examples: [
    [
      '$0 known reports/nightly --why "PLAT-123: input validation ships in May" --who alice --expires 2026-05-31 --out known.yaml',
      "accept tonight's findings until the end of May",
    ],
    ['$0 run scenarios/steady-load.yaml --known known.yaml', 'then only new findings fail a run'],
  ],
  run: async (args, io) => (await import('./known-action.js')).knownAction.run(args, io),
};
