import type { Argv } from 'yargs';
import { checkRecordsFile } from '../../check/check-file.js';
import { loadOpenApiRules } from '../../check/openapi-rules.js';
import { parseTolerances } from '../../check/tolerance-options.js';
import { ExitCode } from '../../core/exit-code.js';
import { coverageLine } from '../../report/verdict.js';
import type { JobstormCommand } from '../command.js';

interface CheckArgs {
  records: string;
  openapi?: string;
  json?: boolean;
  tolerance?: string[];
}

/**
 * `jobstorm check <records.ndjson>`: the same checks as a live run, over a saved records file.
 * Exit 1 when a check of severity error fired.
 */
export const checkCommand: JobstormCommand<CheckArgs> = {
  command: 'check <records>',
  describe: 'Check a saved records.ndjson against the contract',
  builder: (y: Argv) =>
    y
      .positional('records', { type: 'string', demandOption: true, describe: 'records.ndjson written by jobstorm run --record' })
      .option('openapi', { type: 'string', describe: 'also check management answers against this OpenAPI document' })
      .option('json', { type: 'boolean', describe: 'print the violations as JSON' })
      .option('tolerance', { type: 'string', array: true, describe: 'loosen or tighten a check, e.g. clockSkewMs=2000 (repeatable)' })
      .example('$0 check reports/smoke-20261122T101500Z/records.ndjson', 'replay the checks offline'),
  run: async (args, io) => {
    const openapi = args.openapi === undefined ? undefined : await loadOpenApiRules(args.openapi);
    const tolerances = parseTolerances(args.tolerance ?? []);
    const result = await checkRecordsFile(args.records, { tolerances, ...(openapi ? { openapi } : {}) });
    if (args.json) {
      io.out(JSON.stringify(result, null, 2));
    } else if (result.total === 0) {
      io.out(`${args.records}: no violations; ${coverageLine(result.coverage)}`);
    } else {
      io.out(`${args.records}: ${String(result.total)} violations`);
      for (const g of result.violations) {
        const first = g.examples[0];
        io.out(`  ${g.severity === 'error' ? '✗' : '!'} ${g.id} ×${String(g.count)}: ${first?.message ?? ''}`);
        if (first?.repro) io.out(`      repro: ${first.repro}`);
      }
    }
    if (result.violations.some((g) => g.severity === 'error')) return ExitCode.Failed;
    // Records in which no check could judge anything prove nothing either way.
    return Object.values(result.coverage).some((n) => n > 0) ? ExitCode.Ok : ExitCode.Inconclusive;
  },
};
