import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import type { MergeArgs } from './merge-args.js';

/** The `merge` command's flags; what it does (merge-action.ts) loads only when it runs, so start-up pays for one command. */
export const mergeCommand: JobstormCommand<MergeArgs> = {
  command: 'merge <dirs..>',
  describe: 'Merge shard reports exactly',
  builder: (y: Argv) =>
    y
      .positional('dirs', {
        type: 'string',
        array: true,
        describe: 'shard report folders, each holding summary.json',
      })
      .option('out', { type: 'string', demandOption: true, describe: 'folder for the merged reports' })
      .option('threshold', {
        type: 'string',
        array: true,
        describe: 'extra threshold, e.g. "p99(run) < 500ms" (repeatable)',
      })
      .option('force', {
        type: 'boolean',
        describe:
          'merge different runs (scenarios, targets) on purpose; the same run or shard twice is still refused',
      }),
  examples: [['$0 merge shard-1 shard-2 --out merged', 'combine two shards; re-evaluate their thresholds']],
  run: async (args, io) => (await import('./merge-action.js')).mergeAction.run(args, io),
};
