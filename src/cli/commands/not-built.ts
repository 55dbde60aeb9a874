import { ExitCode } from '../../core/exit-code.js';
import type { JobstormCommand } from '../command.js';

/** A command DESIGN.md names but that does not exist yet: it says so and exits 2, never pretends. */
export function notBuilt(command: string, describe: string, issue: string): JobstormCommand {
  return {
    command,
    describe: `${describe} (not built yet)`,
    builder: (y) => y.strict(false),
    run: (_args, io) => {
      const name = command.split(' ')[0] ?? command;
      io.err(`jobstorm ${name}: not built yet (tracked in issue "${issue}"). Nothing was done.`);
      return Promise.resolve(ExitCode.Usage);
    },
  };
}
