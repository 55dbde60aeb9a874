import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import type { ReportArgs } from './report-args.js';

/** The `report` command's flags; what it does (report-action.ts) loads only when it runs, so start-up pays for one command. */
export const reportCommand: JobstormCommand<ReportArgs> = {
  command: 'report <dir>',
  describe: 'Rebuild every report of a run from its summary.json (which it never changes)',
  builder: (y: Argv) =>
    y
      .positional('dir', { type: 'string', describe: 'report folder holding summary.json' })
      .option('out', {
        type: 'string',
        describe: 'write the reports here instead of <dir> (with an unchanged copy of summary.json)',
      })
      .option('threshold', {
        type: 'string',
        array: true,
        describe:
          'extra threshold for this rendering only, e.g. "p99(run) < 500ms" (repeatable; summary.json keeps the run\'s own)',
      }),
  examples: [
    ['$0 report reports/2024-05-01T10-00-00', 'rebuild summary.md, report.html and junit.xml'],
    ['$0 report out --threshold "rate(429) < 1%"', 'judge a finished run against another threshold'],
  ],
  run: async (args, io) => (await import('./report-action.js')).reportAction.run(args, io),
};
