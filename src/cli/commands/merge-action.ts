import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { renderTerminalSummary, writeReports } from '../../report/report-writer.js';
import type { Summary } from '../../report/summary.js';
import { mergeSummaries } from '../../report/summary-merge.js';
import { readSummary } from '../../report/summary-schema.js';
import { VERDICT_EXIT } from '../../report/verdict.js';
import type { JobstormCommand } from '../command.js';
import type { MergeArgs } from './merge-args.js';
import { thresholdFlags } from './report-action.js';

/** The `version` a file declares, or undefined when it cannot be read (readSummary says why). */
async function declaredVersion(file: string): Promise<unknown> {
  try {
    return (JSON.parse(await readFile(file, 'utf8')) as { version?: unknown } | null)?.version;
  } catch {
    return undefined;
  }
}

/**
 * Summaries of different format versions never merge, --force or not: naming both files says more
 * than "unsupported version" about one of them.
 */
async function versionIssues(files: readonly string[]): Promise<ConfigIssue[]> {
  const versions = await Promise.all(files.map(declaredVersion));
  const [first] = versions;
  return versions.flatMap((v, i) =>
    i > 0 && v !== undefined && first !== undefined && v !== first
      ? [
          {
            where: 'merge',
            message: `${files[0] ?? ''} is summary version ${JSON.stringify(first)} but ${files[i] ?? ''} is version ${JSON.stringify(v)}: summaries of different versions cannot be merged`,
          },
        ]
      : [],
  );
}

/** Reads every input before failing, so one run lists every bad file. */
async function readAll(files: readonly string[]): Promise<Summary[]> {
  const issues: ConfigIssue[] = await versionIssues(files);
  if (issues.length) throw new ConfigError(issues);
  const summaries: Summary[] = [];
  for (const file of files) {
    try {
      summaries.push(await readSummary(file));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(...err.issues);
    }
  }
  if (issues.length) throw new ConfigError(issues);
  return summaries;
}

/** What `merge` does once its arguments parsed; loaded only when the command runs. */
export const mergeAction: Pick<JobstormCommand<MergeArgs>, 'run'> = {
  run: async (args, io) => {
    const extra = thresholdFlags(args.threshold);
    const files = (args.dirs ?? []).map((d) => join(d, 'summary.json'));
    const merged = mergeSummaries(await readAll(files), {
      thresholds: extra,
      names: files,
      force: args.force === true,
    });
    const out = args.out ?? 'merged';
    const written = await writeReports(merged, out, {
      stepSummaryPath: io.env.GITHUB_STEP_SUMMARY || undefined,
    });
    io.out(renderTerminalSummary(merged).trimEnd());
    for (const reason of merged.run.forced ?? []) io.err(`jobstorm: merged with --force: ${reason}`);
    io.out(`\nmerged ${files.length} summaries; reports: ${written.join(', ')}`);
    return VERDICT_EXIT[merged.verdict.status];
  },
};
