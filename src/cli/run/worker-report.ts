import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExternalPoolSnapshot } from '../../emulator/index.js';
import { renderWorkersSection } from '../../report/workers-section.js';

/** `workers.json`: every real worker of the run as the emulator saw it, and the processes started. */
export async function writeWorkersJson(out: string, snapshot: ExternalPoolSnapshot): Promise<void> {
  await writeFile(join(out, 'workers.json'), `${JSON.stringify(snapshot, null, 2)}\n`);
}

/** `workers.json` beside the other reports, and the workers section appended to summary.md. */
export async function writeWorkerReport(out: string, snapshot: ExternalPoolSnapshot): Promise<void> {
  await writeWorkersJson(out, snapshot);
  await appendFile(join(out, 'summary.md'), `\n${renderWorkersSection(snapshot.workers, snapshot.processes.length)}`);
}
