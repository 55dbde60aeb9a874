import { CHECK_IDS } from '../../check/catalog.js';
import { copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { renderTerminalSummary, writeReports } from '../../report/report-writer.js';
import { getReporter, reporterNames } from '../../report/reporter-registry.js';
import { readSummary } from '../../report/summary-schema.js';
import { withThresholds } from '../../report/summary-thresholds.js';
import { VERDICT_EXIT } from '../../report/verdict.js';
import { parseThresholds } from '../../report/threshold.js';
import type { JobstormCommand } from '../command.js';
import type { ReportArgs } from './report-args.js';

/** `--threshold` values, parsed together so every bad one is reported at once. */
export function thresholdFlags(values: readonly string[] | undefined): ReturnType<typeof parseThresholds> {
  return parseThresholds(
    (values ?? []).map((expression) => ({ expression, where: '--threshold' })),
    { checkIds: CHECK_IDS },
  );
}

/** What `report` does once its arguments parsed; loaded only when the command runs. */
export const reportAction: Pick<JobstormCommand<ReportArgs>, 'run'> = {
  run: async (args, io) => {
    const dir = args.dir ?? '.';
    const extra = thresholdFlags(args.threshold);
    const file = join(dir, 'summary.json');
    const summary = withThresholds(await readSummary(file), extra, file);
    const outDir = args.out ?? dir;
    // summary.json is the run's record: extra thresholds judge this rendering only, so a later
    // plain `report` gives the run's own verdict again.
    const reporters = reporterNames().filter((n) => getReporter(n).fileName !== 'summary.json');
    const written = await writeReports(summary, outDir, {
      reporters,
      stepSummaryPath: io.env.GITHUB_STEP_SUMMARY || undefined,
    });
    if (resolve(outDir) !== resolve(dir)) {
      await mkdir(outDir, { recursive: true });
      await copyFile(file, join(outDir, 'summary.json'));
      written.unshift(join(outDir, 'summary.json'));
    }
    io.out(renderTerminalSummary(summary).trimEnd());
    io.out(`\nreports: ${written.join(', ')}`);
    return VERDICT_EXIT[summary.verdict.status];
  },
};
