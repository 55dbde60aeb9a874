import type { Argv } from 'yargs';
import type { JobstormCommand } from '../command.js';
import type { ContractArgs } from './contract-args.js';

/** The `contract` command's flags; what it does (contract-action.ts) loads only when it runs, so start-up pays for one command. */
export const contractCommand: JobstormCommand<ContractArgs> = {
  command: 'contract <action> [file]',
  describe: 'Export the API contract (OpenAPI, JSON Schema) or lint an OpenAPI document',
  builder: (y: Argv) =>
    y
      .positional('action', { choices: ['export', 'lint'] as const, describe: 'export | lint' })
      .positional('file', { type: 'string', describe: 'OpenAPI document to lint' })
      .option('openapi', { type: 'string', describe: 'export: write the OpenAPI 3.1 document here' })
      .option('json-schema', {
        type: 'string',
        describe: 'export: write the JSON Schema of scenario files here',
      }),
  examples: [
    ['$0 contract export --openapi api.json', 'write the contract as OpenAPI 3.1'],
    ['$0 contract lint vendor-openapi.json', 'validate a document and list its operations'],
  ],
  run: async (args, io) => (await import('./contract-action.js')).contractAction.run(args, io),
};
