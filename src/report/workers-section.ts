/** One real worker as the emulator saw it (the fields of the emulator's worker stats this section shows). */
export interface WorkerRow {
  id: string;
  state: string;
  coldStartMs: number;
  taken: number;
  completed: number;
  failed: number;
  handlerMs: number;
  stopsSent: number;
  lateResults: number;
  rejectedResults: number;
  lostJobs: number;
  exitCode?: number | null;
}

function ms(n: number): string {
  return n < 0 ? '–' : `${String(Math.round(n))} ms`;
}

/**
 * The handler's side of a run with real workers (`--worker`): per worker, jobs taken, cold start
 * (spawn → first take), mean handler time (take → result), stops, and results late or lost.
 */
export function renderWorkersSection(rows: readonly WorkerRow[], processes: number): string {
  const lines = [
    '## Workers (your handler)',
    '',
    `${String(processes)} worker processes started; ${String(rows.reduce((n, r) => n + r.taken, 0))} jobs taken.`,
    '',
    '| worker | jobs taken | completed | failed | cold start | mean handler time | stops sent | late results | lost jobs | end |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const cells of workerCells(rows)) lines.push(`| ${cells.join(' | ')} |`);
  return `${lines.join('\n')}\n`;
}

export const WORKER_HEADER = [
  'worker',
  'jobs taken',
  'completed',
  'failed',
  'cold start',
  'mean handler time',
  'stops sent',
  'late results',
  'lost jobs',
  'end',
];

/** Each worker's row as plain strings, in WORKER_HEADER's order (each report escapes them its way). */
export function workerCells(rows: readonly WorkerRow[]): string[][] {
  return rows.map((r) => {
    const finished = r.completed + r.failed;
    const mean = finished > 0 ? r.handlerMs / finished : -1;
    const end = r.exitCode === undefined ? r.state : `${r.state} (exit ${String(r.exitCode)})`;
    return [
      r.id,
      String(r.taken),
      String(r.completed),
      String(r.failed),
      ms(r.coldStartMs),
      ms(mean),
      String(r.stopsSent),
      String(r.lateResults),
      String(r.lostJobs),
      end,
    ];
  });
}
