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
export async function writeReports(summary: Summary, dir: string, options: WriteReportsOptions = {}): Promise<string[]> {
  const names = options.reporters ?? reporterNames();
  const chosen = names.map(getReporter).filter((r) => r.fileName !== undefined);
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const r of chosen) {
    const path = join(dir, r.fileName ?? r.name);
    await writeFile(path, r.render(summary));
    written.push(path);
  }
  if (options.stepSummaryPath) {
    await appendFile(options.stepSummaryPath, `${getReporter('markdown').render(summary)}\n`);
    written.push(options.stepSummaryPath);
  }
  return written;
}

/** The text the terminal shows at the end of a run (or of `jobstorm report`). */
export function renderTerminalSummary(summary: Summary): string {
  return getReporter('terminal').render(summary);
}
