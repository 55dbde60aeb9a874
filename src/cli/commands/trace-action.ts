import { ExitCode } from '../../core/exit-code.js';
import { extractJobTrace } from '../../session/job-trace-extraction.js';
import type { JobstormCommand } from '../command.js';
import type { TraceArgs } from './trace-args.js';

/** `jobstorm trace <run>`: the job trace of a run's records (docs/replay.md), and its replay scenario. */
export const traceAction: Pick<JobstormCommand<TraceArgs>, 'run'> = {
  run: async (args, io) => {
    const made = await extractJobTrace(args.run ?? '', args.out);
    const calls = Object.entries(made.actions)
      .map(([op, n]) => `${String(n)} ${op}`)
      .join(', ');
    io.out(`${made.trace}: ${String(made.jobs)} jobs${calls === '' ? '' : `; calls: ${calls}`}`);
    const { unknownJob, purgeBeforeJobs } = made.leftOut;
    if (unknownJob > 0)
      io.err(`jobstorm: warning: ${String(unknownJob)} calls for jobs whose submission the records do not hold were left out`);
    if (purgeBeforeJobs > 0)
      io.err(`jobstorm: warning: ${String(purgeBeforeJobs)} purges made before their flow submitted any job were left out`);
    io.out(`replay it: jobstorm run ${made.scenario}`);
    return ExitCode.Ok;
  },
};
