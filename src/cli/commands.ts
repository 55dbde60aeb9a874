import { registered, type RegisteredCommand } from './command.js';
import { capacityCommand } from './commands/capacity.js';
import { checkCommand } from './commands/check.js';
import { compareCommand } from './commands/compare.js';
import { contractCommand } from './commands/contract.js';
import { emulateCommand } from './commands/emulate.js';
import { initCommand } from './commands/init.js';
import { knownCommand } from './commands/known.js';
import { mergeCommand } from './commands/merge.js';
import { reportCommand } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { traceCommand } from './commands/trace.js';
import { fuzzCommand } from './commands/fuzz.js';
import { dashboardCommand } from './commands/dashboard.js';

/** Every command of DESIGN.md, in the order `--help` lists them. */
export const COMMANDS: RegisteredCommand[] = [
  registered(runCommand),
  registered(emulateCommand),
  registered(checkCommand),
  registered(knownCommand),
  registered(reportCommand),
  registered(mergeCommand),
  registered(compareCommand),
  registered(capacityCommand),
  registered(traceCommand),
  registered(fuzzCommand),
  registered(dashboardCommand),
  registered(contractCommand),
  registered(initCommand),
];
