import { writeTextFiles } from '../report/report-writer.js';
import { renderCapacityHtml } from './capacity-html.js';
import { renderCapacityMarkdown } from './capacity-markdown.js';
import type { CapacityReport } from './capacity-report.js';

export const CAPACITY_FILES = {
  json: 'capacity.json',
  markdown: 'capacity.md',
  html: 'capacity.html',
} as const;

export interface WriteCapacityOptions {
  /** Also append capacity.md here: the CLI passes `$GITHUB_STEP_SUMMARY`, since only it reads the environment. */
  stepSummaryPath?: string;
}

/** Writes capacity.json, capacity.md and capacity.html into `dir`; returns the paths written. */
export async function writeCapacityReports(
  report: CapacityReport,
  dir: string,
  options: WriteCapacityOptions = {},
): Promise<string[]> {
  const markdown = renderCapacityMarkdown(report);
  const files: [string, string][] = [
    [CAPACITY_FILES.json, `${JSON.stringify(report, null, 2)}\n`],
    [CAPACITY_FILES.markdown, markdown],
    [CAPACITY_FILES.html, renderCapacityHtml(report)],
  ];
  return writeTextFiles(
    dir,
    files,
    options.stepSummaryPath ? { path: options.stepSummaryPath, markdown } : undefined,
  );
}
