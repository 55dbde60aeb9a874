import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExternalPoolSnapshot } from '../../emulator/index.js';
import type { WorkersSummary } from '../../report/summary.js';

/** `workers.json`: every real worker of the run as the emulator saw it, and the processes started. */
export async function writeWorkersJson(out: string, snapshot: ExternalPoolSnapshot): Promise<void> {
  await writeFile(join(out, 'workers.json'), `${JSON.stringify(snapshot, null, 2)}\n`);
}

/** What summary.json keeps of the workers, for every report to show (workers.json has the rest). */
export function workersSummary(snapshot: ExternalPoolSnapshot): WorkersSummary {
  return {
    processes: snapshot.processes.length,
    rows: snapshot.workers.map((w) => ({
      id: w.id,
      state: w.state,
      coldStartMs: w.coldStartMs,
      taken: w.taken,
      completed: w.completed,
      failed: w.failed,
      handlerMs: w.handlerMs,
      stopsSent: w.stopsSent,
      lateResults: w.lateResults,
      rejectedResults: w.rejectedResults,
      lostJobs: w.lostJobs,
      exitCode: w.exitCode,
    })),
  };
}
