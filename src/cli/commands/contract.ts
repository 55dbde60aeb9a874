import { readFile, writeFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import { buildOpenApiDocument } from '../../../contracts/openapi.js';
import { lintOpenApi } from '../../../contracts/openapi-lint.js';
import { ExitCode } from '../../core/exit-code.js';
import { scenarioJsonSchema } from '../../scenario/json-schema.js';
import { JOBSTORM_VERSION } from '../../version.js';
import type { CliIo, JobstormCommand } from '../command.js';

interface ContractArgs {
  action?: string;
  file?: string;
  openapi?: string;
  'json-schema'?: string;
}

async function exportDocs(args: ContractArgs, io: CliIo): Promise<ExitCode> {
  if (!args.openapi && !args['json-schema']) {
    io.err('jobstorm contract export: give --openapi <file> and/or --json-schema <file>');
    return ExitCode.Usage;
  }
  if (args.openapi) {
    const doc = buildOpenApiDocument(JOBSTORM_VERSION);
    await writeFile(args.openapi, `${JSON.stringify(doc, null, 2)}\n`);
    io.out(`wrote OpenAPI 3.1 document to ${args.openapi}`);
  }
  if (args['json-schema']) {
    await writeFile(args['json-schema'], `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
    io.out(`wrote the JSON Schema of scenario files to ${args['json-schema']}`);
  }
  return ExitCode.Ok;
}

async function lint(file: string | undefined, io: CliIo): Promise<ExitCode> {
  if (!file) {
    io.err('jobstorm contract lint: give the OpenAPI document to check, e.g. jobstorm contract lint openapi.json');
    return ExitCode.Usage;
  }
  try {
    await readFile(file);
  } catch (err) {
    io.err(`jobstorm contract lint: cannot read ${file}: ${(err as Error).message}`);
    return ExitCode.Usage;
  }
  const result = await lintOpenApi(file);
  if (!result.ok) {
    io.err(`${file}: invalid OpenAPI document\n${result.message}`);
    return ExitCode.Usage;
  }
  io.out(`${file}: valid ${result.openapi} document "${result.title}" ${result.version}, ${String(result.operations.length)} operations`);
  for (const op of result.operations) io.out(`  ${op.method.padEnd(7)} ${op.path}${op.operationId ? `  (${op.operationId})` : ''}`);
  return ExitCode.Ok;
}

export const contractCommand: JobstormCommand<ContractArgs> = {
  command: 'contract <action> [file]',
  describe: 'Export the API contract (OpenAPI, JSON Schema) or lint an OpenAPI document',
  builder: (y: Argv) =>
    y
      .positional('action', { choices: ['export', 'lint'] as const, describe: 'export | lint' })
      .positional('file', { type: 'string', describe: 'OpenAPI document to lint' })
      .option('openapi', { type: 'string', describe: 'export: write the OpenAPI 3.1 document here' })
      .option('json-schema', { type: 'string', describe: 'export: write the JSON Schema of scenario files here' })
      .example('$0 contract export --openapi api.json', 'write the contract as OpenAPI 3.1')
      .example('$0 contract lint vendor-openapi.json', 'validate a document and list its operations'),
  run: (args, io) => (args.action === 'export' ? exportDocs(args, io) : lint(args.file, io)),
};
