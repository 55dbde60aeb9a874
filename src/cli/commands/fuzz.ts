import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import { withTargetOptions } from '../run/target-options.js';
import type { FuzzArgs } from './fuzz-args.js';

/** The `fuzz` command's flags; what it does (fuzz-action.ts) loads only when it runs. */
export const fuzzCommand: JobstormCommand<FuzzArgs> = {
  command: 'fuzz',
  describe: "Find lifecycle bugs: random jobs and calls from the contract's model, each finding shrunk to a scenario",
  builder: (y: Argv) =>
    withTargetOptions(y)
      .option('seed', { type: 'number', describe: 'the seed: the same one tries the same sequences (default: a new one, printed)' })
      .option('duration', { type: 'string', describe: 'stop starting trials after this long, e.g. 60s or 10m (default 1m unless --sequences)' })
      .option('sequences', { type: 'number', describe: 'stop once this many jobs (sequences of calls) were tried' })
      .option('first-finding', { type: 'boolean', describe: 'stop at the first finding, once it is shrunk' })
      .option('fault', {
        type: 'string',
        array: true,
        describe: 'switch on an emulator fault (embedded emulator only; repeatable)',
      })
      .option('exclusive-endpoint', {
        type: 'boolean',
        describe: "no one else uses the target's endpoint: checks that need its queue to be ours alone judge too",
      })
      .option('max-jobs', { type: 'number', describe: 'most jobs in one trial, all at once (default 8)' })
      .option('max-calls', { type: 'number', describe: 'most calls for one job after its submission (default 6)' })
      .option('shrink-runs', { type: 'number', describe: 'most runs spent shrinking one finding (default 200)' })
      .option('load', {
        type: 'string',
        describe: 'a scenario run against the same target beside every trial, so bugs that need load show up (its own findings are not judged)',
      })
      .option('real-time', {
        type: 'boolean',
        describe: "run the embedded emulator on the wall clock (default: on a clock of its own that skips idle time, so trials take milliseconds)",
      })
      .option('out', { type: 'string', describe: 'report folder (default reports/fuzz-<time>)' })
      .option('quiet', { type: 'boolean', describe: 'no progress line' }),
  examples: [
    ['$0 fuzz --duration 60s', 'fuzz the embedded emulator for a minute'],
    ['$0 fuzz --fault retry-any --first-finding', 'find a planted bug and shrink it to a scenario'],
    ['$0 fuzz --target https://api.example.com/v2/abc123 --sequences 2000 --seed 7', 'a real endpoint, a fixed budget and seed'],
    ['$0 fuzz --load scenarios/steady-load.yaml --duration 5m', 'beside a steady background load'],
  ],
  run: async (args, io) => (await import('./fuzz-action.js')).fuzzAction.run(args, io),
};
