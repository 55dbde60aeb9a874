import type { ChartSpec } from '../report/chart-data.js';
import { reportView } from '../report/html-reporter.js';
import type { Summary } from '../report/summary.js';

/**
 * What one update of the page carries: the report's view of the summary so far (the same
 * renderer as report.html), and where the run stands. The page replaces its body with it and
 * redraws the charts, so a page opened late or reloaded shows the whole history at once.
 */
export interface DashboardFrame {
  /** Counts up with each frame the dashboard made. */
  seq: number;
  state: 'waiting' | 'running' | 'done';
  /** Run time of the summary, ms (0 while waiting): the page says how old what it shows is. */
  elapsedMs: number;
  title: string;
  verdict: string;
  body: string;
  charts: ChartSpec[];
  /** The last frame of a run whose report is a page of its own (capacity.html): open pages reload into it. */
  reload?: true;
}

/** Before the first record there is nothing to show but that the run is starting. */
export function waitingFrame(seq: number, title: string): DashboardFrame {
  return {
    seq,
    state: 'waiting',
    elapsedMs: 0,
    title,
    verdict:
      '<div class="verdict verdict-running" role="status"><strong>STARTING</strong> — waiting for the run to begin</div>',
    body: '',
    charts: [],
  };
}

/** A frame of `summary`: live (`running`: no verdict nor coverage yet) or the run's last. */
export function summaryFrame(
  seq: number,
  summary: Summary,
  running: boolean,
  title?: string,
): DashboardFrame {
  const view = reportView(summary, running);
  return {
    seq,
    state: running ? 'running' : 'done',
    elapsedMs: Math.round(summary.run.durationMs),
    title: title ?? `jobstorm ${running ? 'live' : 'report'} ${summary.run.id}`,
    verdict: view.verdict,
    body: view.body,
    charts: view.charts,
  };
}
