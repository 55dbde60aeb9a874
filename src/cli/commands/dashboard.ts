import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import type { DashboardCommandArgs } from './dashboard-args.js';

/** The `dashboard` command's flags; what it does (dashboard-action.ts) loads only when it runs. */
export const dashboardCommand: JobstormCommand<DashboardCommandArgs> = {
  command: 'dashboard <folder>',
  describe: 'Watch the shards of a run live in the browser, merged, from their --barrier folder',
  builder: (y: Argv) =>
    y
      .positional('folder', {
        type: 'string',
        demandOption: true,
        describe: 'the --barrier folder the shards share',
      })
      .option('port', {
        type: 'string',
        describe: 'port of the page (default 0: a free one; the URL is printed)',
      })
      .option('host', {
        type: 'string',
        describe:
          'address the page binds (default 127.0.0.1); elsewhere it is reachable from other machines and carries no authentication',
      }),
  examples: [['$0 dashboard /shared/barrier', 'watch the shards run with --barrier /shared/barrier']],
  run: async (args, io) => (await import('./dashboard-action.js')).dashboardAction.run(args, io),
};
