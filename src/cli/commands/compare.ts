import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import type { CompareArgs } from './compare-args.js';

/** The `compare` command's flags; what it does (compare-action.ts) loads only when it runs, so start-up pays for one command. */
export const compareCommand: JobstormCommand<CompareArgs> = {
  command: 'compare <baseline> <current>',
  describe: 'Compare a run against a baseline run: deltas with their significance, gates on them',
  builder: (y: Argv) =>
    y
      .positional('baseline', { type: 'string', describe: 'baseline run folder (or its summary.json)' })
      .positional('current', { type: 'string', describe: 'current run folder (or its summary.json)' })
      .option('gate', {
        type: 'string',
        array: true,
        describe: 'gate on a change, e.g. "delta(p99(run)) < 10%" (repeatable)',
      })
      .option('scenario', {
        type: 'string',
        describe: 'scenario file whose compare: section gives gates and significance',
      })
      .option('significance', {
        type: 'number',
        describe: 'a gate fails only on a change significant at this level, e.g. 0.95',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'compare runs of different scenarios, kinds of target or rates',
      })
      .option('seed', { type: 'number', describe: 'seed of the resampling (default 1)' })
      .option('job-noise', {
        type: 'number',
        describe:
          'how far job timings may shift from run to run by noise alone, as a fraction (default 0.05)',
      })
      .option('out', {
        type: 'string',
        describe: 'folder for compare.{json,md,html} and compare-junit.xml (default <current>/compare)',
      }),
  examples: [
    [
      '$0 compare reports/last-good reports/tonight --gate "delta(p99(run)) < 10%" --gate "new(violations) == 0"',
      'gate tonight against the last good run',
    ],
    [
      '$0 compare base cur --significance 0.95 --gate "delta(p95(e2e{status=COMPLETED})) < 250ms"',
      'fail only on changes larger than the noise',
    ],
  ],
  run: async (args, io) => (await import('./compare-action.js')).compareAction.run(args, io),
};
