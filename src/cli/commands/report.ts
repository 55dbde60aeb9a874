import { join } from 'node:path';
import type { Argv } from 'yargs';
import { renderTerminalSummary, writeReports } from '../../report/report-writer.js';
import { readSummary } from '../../report/summary-schema.js';
import { withThresholds } from '../../report/summary-thresholds.js';
import { VERDICT_EXIT } from '../../report/verdict.js';
import { parseThresholds } from '../../report/threshold.js';
import type { JobstormCommand } from '../command.js';

interface ReportArgs {
  dir?: string;
  out?: string;
  threshold?: string[];
}

/** `--threshold` values, parsed together so every bad one is reported at once. */
export function thresholdFlags(values: readonly string[] | undefined): ReturnType<typeof parseThresholds> {
  return parseThresholds((values ?? []).map((expression) => ({ expression, where: '--threshold' })));
}

export const reportCommand: JobstormCommand<ReportArgs> = {
  command: 'report <dir>',
  describe: 'Rebuild every report of a run from its summary.json',
  builder: (y: Argv) =>
    y
      .positional('dir', { type: 'string', describe: 'report folder holding summary.json' })
      .option('out', { type: 'string', describe: 'write the reports here instead of <dir>' })
      .option('threshold', { type: 'string', array: true, describe: 'extra threshold, e.g. "p99(run) < 500ms" (repeatable)' })
      .example('$0 report reports/2024-05-01T10-00-00', 'rebuild summary.md, report.html and junit.xml')
      .example('$0 report out --threshold "rate(429) < 1%"', 'judge a finished run against another threshold'),
  run: async (args, io) => {
    const dir = args.dir ?? '.';
    const extra = thresholdFlags(args.threshold);
    const file = join(dir, 'summary.json');
    const summary = withThresholds(await readSummary(file), extra, file);
    const outDir = args.out ?? dir;
    const written = await writeReports(summary, outDir, { stepSummaryPath: io.env.GITHUB_STEP_SUMMARY || undefined });
    io.out(renderTerminalSummary(summary).trimEnd());
    io.out(`\nreports: ${written.join(', ')}`);
    return VERDICT_EXIT[summary.verdict.status];
  },
};
