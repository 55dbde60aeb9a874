import type { Clock } from '../core/clock.js';
import type { Summary } from '../report/summary.js';
import { summaryFrame, waitingFrame, type DashboardFrame } from './dashboard-frame.js';
import { dashboardPage } from './dashboard-page.js';
import { DashboardServer } from './dashboard-server.js';

/** Where a run stands, as the dashboard shows it: its summary so far. */
export interface LiveState {
  summary: Summary;
  /** False once the summary is the run's last (a shard folder whose shards all ended). */
  running: boolean;
  /** The page's title, when not the run's. */
  title?: string;
}

export interface DashboardOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: the system picks a free port. */
  port?: number;
  /** The run's clock: an update each `intervalMs` of its time. */
  clock: Clock;
  /** Default 1000. */
  intervalMs?: number;
  /** What the page shows before the run's first record. */
  title: string;
  /**
   * The state so far, asked once per update and only while a page is open: a summary costs
   * milliseconds, which a run pays once a second while someone watches and never otherwise.
   */
  source(): LiveState | undefined;
}

/**
 * The live dashboard (issue 51): a sink of the session like the exporters, reading what the
 * session already keeps (its summary so far: the per-second series, the histograms, the findings)
 * once a second, never per request. Every update is the report's own view of that summary, so
 * the page watched and report.html are one view; `finish` shows the run's last summary and keeps
 * serving it until `close`.
 */
export class Dashboard {
  private readonly server: DashboardServer;
  private seq = 0;
  private latest: DashboardFrame;
  private final = false;
  /** The report page that replaced the live one (`finishPage`). */
  private finalPage: string | undefined;
  private cancelTick: (() => void) | undefined;
  private builds = 0;

  constructor(private readonly o: DashboardOptions) {
    this.latest = waitingFrame(0, o.title);
    this.server = new DashboardServer(o.host ?? '127.0.0.1', {
      page: () => this.finalPage ?? dashboardPage(this.fresh()),
      frameJson: () => JSON.stringify(this.fresh()),
    });
  }

  /** Summaries built so far: none while nobody watches (the test of "no browser, no cost"). */
  get framesBuilt(): number {
    return this.builds;
  }

  /** Pages connected now. */
  get watching(): number {
    return this.server.watching;
  }

  /** Serves the page and starts the updates; resolves with its URL. */
  async start(): Promise<string> {
    const url = await this.server.listen(this.o.port ?? 0);
    const interval = this.o.intervalMs ?? 1000;
    const tick = (): void => {
      this.cancelTick = this.o.clock.schedule(interval, () => {
        tick();
        this.update();
      });
    };
    tick();
    return url;
  }

  /** The run's last summary: shown from now on, to every page open and every reload. */
  finish(summary: Summary, title?: string): void {
    this.stopTicking();
    this.latest = summaryFrame(++this.seq, summary, false, title);
    this.final = true;
    this.server.send(JSON.stringify(this.latest));
  }

  /**
   * The run's report when it is a page of its own (capacity.html): served from now on, and every
   * open page reloads into it, so what stays on the screen is the report file itself.
   */
  finishPage(html: string): void {
    this.stopTicking();
    this.finalPage = html;
    this.final = true;
    this.latest = { ...this.latest, seq: ++this.seq, state: 'done', reload: true };
    this.server.send(JSON.stringify(this.latest));
  }

  /** Ends the event streams and stops serving: the pages keep what they show. */
  async close(): Promise<void> {
    this.stopTicking();
    await this.server.close();
  }

  private stopTicking(): void {
    this.cancelTick?.();
    this.cancelTick = undefined;
  }

  /** One update: built and sent only when a page is open. */
  private update(): void {
    if (this.server.watching === 0) return;
    this.server.send(JSON.stringify(this.fresh()));
  }

  /** The latest frame, made anew from the source unless the run is over. */
  private fresh(): DashboardFrame {
    if (this.final) return this.latest;
    const state = this.o.source();
    if (!state) return this.latest;
    this.builds++;
    this.latest = summaryFrame(++this.seq, state.summary, state.running, state.title);
    if (!state.running) this.final = true;
    return this.latest;
  }
}
