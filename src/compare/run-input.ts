import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Summary } from '../report/summary.js';
import { readSummary } from '../report/summary-schema.js';

/** A run folder (holding summary.json) or a summary.json itself, merged shard reports included. */
export async function summaryPath(input: string): Promise<string> {
  try {
    if ((await stat(input)).isDirectory()) return join(input, 'summary.json');
  } catch {
    // Not there: readSummary names the path in its error.
  }
  return input;
}

export async function readRun(input: string): Promise<Summary> {
  return readSummary(await summaryPath(input));
}
