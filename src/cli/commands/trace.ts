import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import type { TraceArgs } from './trace-args.js';

/** The `trace` command's flags; what it does (trace-action.ts) loads only when it runs. */
export const traceCommand: JobstormCommand<TraceArgs> = {
  command: 'trace <run>',
  describe: "Make a job trace of a run's records, and a scenario that replays it",
  builder: (y: Argv) =>
    y
      .positional('run', {
        type: 'string',
        demandOption: true,
        describe: 'a report folder of a run made with --record, or its records.ndjson',
      })
      .option('out', {
        type: 'string',
        describe: 'where to write the trace (default job-trace.jsonl beside the records); replay.yaml goes beside it',
      }),
  examples: [
    ['$0 trace reports/smoke-20261122T101500Z', 'write job-trace.jsonl and replay.yaml into the run folder'],
    ['$0 run reports/smoke-20261122T101500Z/replay.yaml --target https://staging.example/v2/abc', 'replay it elsewhere'],
  ],
  run: async (args, io) => (await import('./trace-action.js')).traceAction.run(args, io),
};
