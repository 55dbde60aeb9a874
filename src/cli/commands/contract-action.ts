import { readFile, writeFile } from 'node:fs/promises';
import { buildOpenApiDocument } from '../../../contracts/openapi.js';
import { lintOpenApi } from '../../../contracts/openapi-lint.js';
import { ExitCode } from '../../core/exit-code.js';
import { scenarioJsonSchema } from '../../scenario/json-schema.js';
import { JOBSTORM_VERSION } from '../../version.js';
import type { CliIo, JobstormCommand } from '../command.js';
import type { ContractArgs } from './contract-args.js';

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
    io.err(
      'jobstorm contract lint: give the OpenAPI document to check, e.g. jobstorm contract lint openapi.json',
    );
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
  io.out(
    `${file}: valid ${result.openapi} document "${result.title}" ${result.version}, ${String(result.operations.length)} operations`,
  );
  for (const op of result.operations)
    io.out(`  ${op.method.padEnd(7)} ${op.path}${op.operationId ? `  (${op.operationId})` : ''}`);
  return ExitCode.Ok;
}

/** What `contract` does once its arguments parsed; loaded only when the command runs. */
export const contractAction: Pick<JobstormCommand<ContractArgs>, 'run'> = {
  run: (args, io) => (args.action === 'export' ? exportDocs(args, io) : lint(args.file, io)),
};
