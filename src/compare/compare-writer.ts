import { writeTextFiles } from '../report/report-writer.js';
import type { Summary } from '../report/summary.js';
import type { Comparison } from './compare-data.js';
import { renderCompareHtml } from './compare-html.js';
import { renderCompareJunit } from './compare-junit.js';
import { renderCompareMarkdown } from './compare-markdown.js';

export const COMPARE_FILES = ['compare.json', 'compare.md', 'compare.html', 'compare-junit.xml'] as const;

export interface CompareWriteOptions {
  /** Also append compare.md here (the CLI passes `$GITHUB_STEP_SUMMARY`). */
  stepSummaryPath?: string;
}

/** Writes compare.json, compare.md, compare.html and compare-junit.xml into `dir`; returns the paths. */
export async function writeComparison(
  cmp: Comparison,
  baseline: Summary,
  current: Summary,
  dir: string,
  o: CompareWriteOptions = {},
): Promise<string[]> {
  const markdown = renderCompareMarkdown(cmp);
  const files: [string, string][] = [
    ['compare.json', `${JSON.stringify(cmp, null, 2)}\n`],
    ['compare.md', markdown],
    ['compare.html', renderCompareHtml(cmp, baseline, current)],
    ['compare-junit.xml', renderCompareJunit(cmp)],
  ];
  return writeTextFiles(dir, files, o.stepSummaryPath ? { path: o.stepSummaryPath, markdown } : undefined);
}
