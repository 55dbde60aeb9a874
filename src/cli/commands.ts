import { registered, type RegisteredCommand } from './command.js';
import { contractCommand } from './commands/contract.js';
import { notBuilt } from './commands/not-built.js';

/** Every command of DESIGN.md, in the order `--help` lists them. */
export const COMMANDS: RegisteredCommand[] = [
  registered(notBuilt('run [scenario]', 'Run a scenario against a target (default: the embedded emulator)', 'Load engine')),
  registered(notBuilt('emulate', 'Serve the emulated API on loopback', 'The emulator')),
  registered(notBuilt('check <records>', 'Check a saved records.ndjson against the contract', 'Contract checker')),
  registered(notBuilt('report <dir>', 'Rebuild every report of a run from its summary.json', 'Metrics and reports')),
  registered(notBuilt('merge <dirs..>', 'Merge shard reports exactly', 'Metrics and reports')),
  registered(notBuilt('capacity <scenario>', 'Find the highest sustainable arrival rate within an SLO', 'Capacity reports')),
  registered(contractCommand),
];
