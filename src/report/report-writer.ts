import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getReporter, reporterNames } from './reporter-registry.js';
import type { Summary } from './summary.js';

export interface WriteReportsOptions {
  /** Reporters to write; default every registered one that writes a file. */
  reporters?: readonly string[];
  /**
   * Also append the Markdown summary here: the CLI passes `$GITHUB_STEP_SUMMARY`, since only the
   * CLI reads the environment.
   */
  stepSummaryPath?: string;
}

/** Writes summary.json, summary.md, report.html and junit.xml into `dir`; returns the paths written. */
export async function writeReports(
  summary: Summary,
  dir: string,
  options: WriteReportsOptions = {},
): Promise<string[]> {
  const names = options.reporters ?? reporterNames();
  const chosen = names.map(getReporter).filter((r) => r.fileName !== undefined);
  const files = chosen.map((r): [string, string] => [r.fileName ?? r.name, r.render(summary)]);
  const stepSummary = options.stepSummaryPath
    ? { path: options.stepSummaryPath, markdown: getReporter('markdown').render(summary) }
    : undefined;
  return writeTextFiles(dir, files, stepSummary);
}

/**
 * Writes each `[name, text]` into `dir` (made if missing) and appends `stepSummary.markdown` to its
 * path when given (`$GITHUB_STEP_SUMMARY`); returns the paths written. Shared by the run, compare
 * and capacity reports.
 */
export async function writeTextFiles(
  dir: string,
  files: readonly (readonly [string, string])[],
  stepSummary?: { path: string; markdown: string },
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    await writeFile(path, text);
    written.push(path);
  }
  if (stepSummary) {
    await appendFile(stepSummary.path, `${stepSummary.markdown}\n`);
    written.push(stepSummary.path);
  }
  return written;
}

/** The text the terminal shows at the end of a run (or of `jobstorm report`). */
export function renderTerminalSummary(summary: Summary): string {
  return getReporter('terminal').render(summary);
}
