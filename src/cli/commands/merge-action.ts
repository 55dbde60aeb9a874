import { existsSync } from 'node:fs';
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

/**
 * Reads every input before failing, so one run lists every bad file. A folder without summary.json
 * is a shard that failed or never ran: the merge goes on without it and says it is partial (it
 * does not wait for it); at least one summary must be there.
 */
async function readAll(files: readonly string[]): Promise<{ summaries: Summary[]; missing: string[] }> {
  const missing = files.filter((f) => !existsSync(f));
  const present = files.filter((f) => existsSync(f));
  if (present.length === 0)
    throw new ConfigError(
      files.map((f) => ({ where: f, message: 'no summary.json here: nothing to merge' })),
    );
  const issues: ConfigIssue[] = await versionIssues(present);
  if (issues.length) throw new ConfigError(issues);
  const summaries: Summary[] = [];
  for (const file of present) {
    try {
      summaries.push(await readSummary(file));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(...err.issues);
    }
  }
  if (issues.length) throw new ConfigError(issues);
  return { summaries, missing };
}

/** One second apart or more, the shards' loads did not add up second by second. */
const START_SPREAD_WARN_MS = 1000;

/** What the user should know about how the shards ran together. */
function shardWarnings(merged: Summary, missing: readonly string[]): string[] {
  const out = missing.map(
    (f) => `${f} not found: merged without it (its shard failed or never ran); the merge is partial`,
  );
  const spread = merged.run.startSpreadMs ?? 0;
  if (spread > START_SPREAD_WARN_MS)
    out.push(
      `the shards started ${(spread / 1000).toFixed(1)} s apart: the per-second series are aligned by wall clock, so in the first and last ${(spread / 1000).toFixed(1)} s not every shard was sending (start them together with --barrier or --start-at)`,
    );
  const by = merged.run.stoppedBy;
  if (by) out.push(`shard ${by.shard} stopped the run: ${by.reason}`);
  return out;
}

/** What `merge` does once its arguments parsed; loaded only when the command runs. */
export const mergeAction: Pick<JobstormCommand<MergeArgs>, 'run'> = {
  run: async (args, io) => {
    const extra = thresholdFlags(args.threshold);
    const files = (args.dirs ?? []).map((d) => join(d, 'summary.json'));
    const { summaries, missing } = await readAll(files);
    const merged = mergeSummaries(summaries, {
      thresholds: extra,
      names: files.filter((f) => !missing.includes(f)),
      force: args.force === true,
      missing,
    });
    const out = args.out ?? 'merged';
    const written = await writeReports(merged, out, {
      stepSummaryPath: io.env.GITHUB_STEP_SUMMARY || undefined,
    });
    io.out(renderTerminalSummary(merged).trimEnd());
    for (const reason of merged.run.forced ?? []) io.err(`jobstorm: merged with --force: ${reason}`);
    for (const warning of shardWarnings(merged, missing)) io.err(`jobstorm: warning: ${warning}`);
    io.out(`\nmerged ${String(summaries.length)} summaries; reports: ${written.join(', ')}`);
    return VERDICT_EXIT[merged.verdict.status];
  },
};
