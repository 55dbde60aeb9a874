import { checkRecordsFile } from '../../session/records-check.js';
import { loadOpenApiRules } from '../../check/openapi-rules.js';
import { parseTolerances } from '../../check/tolerance-options.js';
import { ExitCode } from '../../core/exit-code.js';
import { coverageLine } from '../../report/verdict.js';
import type { JobstormCommand } from '../command.js';
import type { CheckArgs } from './check-args.js';

/**
 * `jobstorm check <records.ndjson>`: the same checks as a live run, over a saved records file.
 * Exit 1 when a check of severity error fired.
 */
export const checkAction: Pick<JobstormCommand<CheckArgs>, 'run'> = {
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
        io.out(
          `  ${g.severity === 'error' ? '✗' : '!'} ${g.id} ×${String(g.count)}: ${first?.message ?? ''}`,
        );
        if (first?.repro) io.out(`      repro: ${first.repro}`);
      }
    }
    if (result.violations.some((g) => g.severity === 'error')) return ExitCode.Failed;
    // Records in which no check could judge anything prove nothing either way.
    return Object.values(result.coverage).some((n) => n > 0) ? ExitCode.Ok : ExitCode.Inconclusive;
  },
};
