import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import { CHECK_OPTIONS } from '../run/check-options.js';
import { DASHBOARD_OPTIONS } from '../run/dashboard-flags.js';
import { EXPORT_OPTIONS } from '../run/export-options.js';
import { withTargetOptions } from '../run/target-options.js';
import type { CapacityArgs } from './capacity-args.js';

/** The `capacity` command's flags; what it does (capacity-action.ts) loads only when it runs, so start-up pays for one command. */
export const capacityCommand: JobstormCommand<CapacityArgs> = {
  command: 'capacity <scenario>',
  describe: 'Find the highest sustainable arrival rate within an SLO',
  builder: (y: Argv) =>
    withTargetOptions(y)
      .positional('scenario', {
        type: 'string',
        demandOption: true,
        describe: "scenario file; its flows run at each step's rate",
      })
      .option('slo', {
        type: 'string',
        array: true,
        describe:
          'a threshold every step must meet, e.g. "p95(e2e) < 10s" (repeatable; default: the scenario thresholds)',
      })
      .option('start', { type: 'number', describe: 'first rate, jobs/s (default: the scenario peak rate)' })
      .option('factor', {
        type: 'number',
        describe: 'multiply the rate by this after each passing step (default 1.5)',
      })
      .option('increment', { type: 'number', describe: 'or add this many jobs/s after each passing step' })
      .option('max', { type: 'number', describe: 'highest rate tried (default 20 × start)' })
      .option('step-duration', { type: 'string', describe: 'measured time per step (default 20s)' })
      .option('warmup', { type: 'string', describe: 'unmeasured start of each step (default 5s)' })
      .option('mode', {
        choices: ['step', 'binary'] as const,
        describe: 'step: stop at the first failure; binary: then narrow it down (default binary)',
      })
      .option('resolution', {
        type: 'number',
        describe: 'binary mode stops when (failing − passing) / passing is below this (default 0.05)',
      })
      .option('out', {
        type: 'string',
        describe: 'report folder (default reports/capacity-<scenario>-<time>)',
      })
      .option('quiet', { type: 'boolean', describe: 'no progress lines and no terminal summary' })
      .option('strict', CHECK_OPTIONS.strict)
      .options(EXPORT_OPTIONS)
      .options(DASHBOARD_OPTIONS)
      .option('worker', {
        type: 'string',
        describe:
          'search the capacity of your own worker: a command that starts one; the emulator scales its processes',
      }),
  examples: [
    [
      '$0 capacity scenarios/steady-load.yaml --slo "p95(e2e) < 2s" --slo "rate(429) < 1%"',
      'against the embedded emulator',
    ],
    [
      '$0 capacity scenarios/steady-load.yaml --target https://api.example.com/v2/abc123 --start 20 --max 400',
      'against a real endpoint',
    ],
    [
      '$0 capacity scenarios/steady-load.yaml --export prometheus=http://localhost:9090/api/v1/write',
      'with every step streamed to Prometheus as it runs',
    ],
  ],
  run: async (args, io) => (await import('./capacity-action.js')).capacityAction.run(args, io),
};
