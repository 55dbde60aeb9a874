import type { Argv } from 'yargs';
import { PROFILES } from '../../emulator/profile.js';
import type { JobstormCommand } from '../command.js';
import type { EmulateArgs } from './emulate-args.js';

/** The `emulate` command's flags; what it does (emulate-action.ts) loads only when it runs, so start-up pays for one command. */
export const emulateCommand: JobstormCommand<EmulateArgs> = {
  command: 'emulate',
  describe: 'Serve the emulated API on loopback',
  builder: (y: Argv) =>
    y
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
      .option('port', { type: 'number', default: 8787, describe: 'port (0 picks a free one)' })
      .option('api-key', {
        type: 'string',
        describe: 'the key clients must send (default: $JOBSTORM_API_KEY, else a fixed local key)',
      })
      .option('endpoint', {
        type: 'string',
        array: true,
        describe: 'endpoint id to serve (repeatable; the first is printed)',
      })
      .option('workers-min', { type: 'number', describe: 'warm workers per endpoint' })
      .option('workers-max', { type: 'number', describe: 'most workers per endpoint' })
      .option('requests-per-worker', {
        type: 'number',
        describe: 'dynamic rate limit: running workers x this',
      })
      .option('profile', {
        type: 'string',
        describe: `handler profile: ${Object.keys(PROFILES).join(', ')}, or a JSON/YAML file`,
      })
      .option('clock', {
        type: 'string',
        choices: ['real', 'manual'],
        default: 'real',
        describe: 'manual: time moves only through POST /_emulator/clock/advance',
      })
      .option('fault', {
        type: 'string',
        array: true,
        describe: 'switch a fault on (repeatable; server-errors=0.2 sets the fraction)',
      })
      .option('external-workers', {
        type: 'boolean',
        describe: 'no simulated workers: real workers take the jobs (prints the environment they need)',
      })
      .option('stream-shape', {
        type: 'string',
        choices: ['envelope', 'array'],
        default: 'envelope',
        describe: '/stream body: {status, stream:[...]} or a bare array',
      }),
  examples: [
    ['$0 emulate --port 0', 'serve on a free port'],
    ['$0 emulate --fault cancel-ignored --clock manual', 'a broken twin to prove a check'],
    ['$0 emulate --external-workers', 'your own worker takes the jobs'],
  ],
  run: async (args, io) => (await import('./emulate-action.js')).emulateAction.run(args, io),
};
