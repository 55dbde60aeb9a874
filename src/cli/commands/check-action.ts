import { checkRecordsFile } from '../../session/records-check.js';
import { loadOpenApiRules } from '../../check/openapi-rules.js';
import { parseTolerances } from '../../check/tolerance-options.js';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import type { JobstormCommand } from '../command.js';
import { parseKnownFlags } from '../known-flags.js';
import type { CheckArgs } from './check-args.js';
import { checkExit, checkResultLines } from './check-text.js';

/**
 * `jobstorm check <records.ndjson>`: the same checks as a live run, over a saved records file, with
 * the checks the run skipped and the deviations it accepted (its run record carries both) unless
 * `--known` says otherwise. Exit 1 when a new finding of severity error remains.
 */
export const checkAction: Pick<JobstormCommand<CheckArgs>, 'run'> = {
  run: async (args, io) => {
    const issues: ConfigIssue[] = [];
    const checking = parseKnownFlags(args, issues);
    if (issues.length > 0) throw new ConfigError(issues);
    const openapi = args.openapi === undefined ? undefined : await loadOpenApiRules(args.openapi);
    const tolerances = parseTolerances(args.tolerance ?? []);
    const result = await checkRecordsFile(args.records, {
      tolerances,
      ...(openapi ? { openapi } : {}),
      ...(checking.skip.length ? { skip: checking.skip } : {}),
      ...(checking.known ? { known: checking.known } : {}),
    });
    if (args.json) io.out(JSON.stringify(result, null, 2));
    else for (const line of checkResultLines(args.records, result)) io.out(line);
    return checkExit(result);
  },
};
