import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { renderTerminalSummary, writeReports } from '../../report/report-writer.js';
import type { Summary } from '../../report/summary.js';
import { mergeSummaries } from '../../report/summary-merge.js';
import { readSummary } from '../../report/summary-schema.js';
import { VERDICT_EXIT } from '../../report/verdict.js';
import type { JobstormCommand } from '../command.js';
import { thresholdFlags } from './report.js';

interface MergeArgs {
  dirs?: string[];
  out?: string;
  threshold?: string[];
  force?: boolean;
}

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
      ? [{ where: 'merge', message: `${files[0] ?? ''} is summary version ${JSON.stringify(first)} but ${files[i] ?? ''} is version ${JSON.stringify(v)}: summaries of different versions cannot be merged` }]
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

export const mergeCommand: JobstormCommand<MergeArgs> = {
  command: 'merge <dirs..>',
  describe: 'Merge shard reports exactly',
  builder: (y: Argv) =>
    y
      .positional('dirs', { type: 'string', array: true, describe: 'shard report folders, each holding summary.json' })
      .option('out', { type: 'string', demandOption: true, describe: 'folder for the merged reports' })
      .option('threshold', { type: 'string', array: true, describe: 'extra threshold, e.g. "p99(run) < 500ms" (repeatable)' })
      .option('force', { type: 'boolean', describe: 'merge different runs (scenarios, targets) on purpose; the same run or shard twice is still refused' })
      .example('$0 merge shard-1 shard-2 --out merged', 'combine two shards; re-evaluate their thresholds'),
  run: async (args, io) => {
    const extra = thresholdFlags(args.threshold);
    const files = (args.dirs ?? []).map((d) => join(d, 'summary.json'));
    const merged = mergeSummaries(await readAll(files), { thresholds: extra, names: files, force: args.force === true });
    const out = args.out ?? 'merged';
    const written = await writeReports(merged, out, { stepSummaryPath: io.env.GITHUB_STEP_SUMMARY || undefined });
    io.out(renderTerminalSummary(merged).trimEnd());
    for (const reason of merged.run.forced ?? []) io.err(`jobstorm: merged with --force: ${reason}`);
    io.out(`\nmerged ${files.length} summaries; reports: ${written.join(', ')}`);
    return VERDICT_EXIT[merged.verdict.status];
  },
};
