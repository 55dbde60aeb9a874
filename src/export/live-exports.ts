import { systemClock, type Clock, type EpochClock } from '../core/clock.js';
import type { JobstormRecord } from '../core/record.js';
import type { Violation } from '../core/violation.js';
import type { JobEvents } from '../fold/job-events.js';
import { EXPORTERS } from './exporters.js';
import { LiveAggregate, type ThresholdStatus } from './live-aggregate.js';
import type { ExportKind, ExportTarget, MetricSender } from './metric-sender.js';
import type { MetricSnapshot } from './metric-snapshot.js';

/** What each export did, for summary.json's `exports`. The URL is shown without credentials or query. */
export interface ExportStats {
  kind: ExportKind;
  url: string;
  /** Flushes the backend accepted. */
  sent: number;
  /** Flushes that failed, timed out, or were skipped because the previous one was still in flight. */
  dropped: number;
  lastError?: string;
}

export interface LiveExportsOptions {
  targets: readonly ExportTarget[];
  /** Default 5 s. */
  intervalMs?: number;
  runId: string;
  scenario: string;
  /** The scenario's tags, as labels on every series. */
  tags?: Readonly<Record<string, string>>;
  /** Shard label for what no record labels itself (default `1/1`). */
  shard?: string;
  /** A backend failed or recovered; the caller prints it. */
  onWarning(message: string): void;
  /** Bound on the final flush at `stop` (default 5 s). */
  stopTimeoutMs?: number;
  /**
   * The run's clock (the system's by default): the flush interval and the stop bound are its time,
   * and each snapshot is stamped with its epoch reading, so a run on a manual clock exports as it
   * would in real time (issue 46). A send's own timeout stays on real time: it bounds a real socket.
   */
  clock?: EpochClock;
}

export const DEFAULT_EXPORT_INTERVAL_MS = 5000;
const DEFAULT_STOP_TIMEOUT_MS = 5000;

interface Output {
  sender: MetricSender;
  stats: ExportStats;
  busy: Promise<void> | undefined;
  failing: boolean;
}

/** Origin and path only: credentials and query strings (some backends take keys there) stay out of reports. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

function senderFor(target: ExportTarget, timeoutMs: number): MetricSender {
  return new LazySender(target.kind, () => EXPORTERS[target.kind].create(target, timeoutMs));
}

/** A sender made on its first flush (see Exporter.create: most runs export nothing). */
class LazySender implements MetricSender {
  private inner: Promise<MetricSender> | undefined;

  constructor(
    readonly kind: ExportKind,
    private readonly make: () => Promise<MetricSender>,
  ) {}

  async send(snapshot: MetricSnapshot, timeoutMs: number): Promise<void> {
    await (await (this.inner ??= this.make())).send(snapshot, timeoutMs);
  }

  async close(): Promise<void> {
    if (this.inner) await (await this.inner).close();
  }
}

function message(err: unknown): string {
  const e = err as { message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const cause = e?.cause?.code ?? e?.cause?.message;
  const text = typeof e?.message === 'string' ? e.message : String(err);
  return typeof cause === 'string' && !text.includes(cause) ? `${text} (${cause})` : text;
}

/** Resolves after `ms` of `clock` or when `p` settles, whichever is first; never rejects. */
async function within(p: Promise<unknown>, ms: number, clock: Clock): Promise<void> {
  const done = new AbortController();
  await Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    // A sleep, not a scheduled callback: it holds the process open while a backend takes its time.
    clock.sleep(Math.max(0, ms), done.signal).catch(() => undefined),
  ]);
  done.abort();
}

/**
 * Live outputs of a run, like k6's outputs: `start`, `add` each record, `flush` on an interval,
 * `stop` with a last bounded flush. Records only update counters (see LiveAggregate); sending runs
 * on the interval, one send per backend at a time, and a failure is counted and warned about, never
 * thrown into the run.
 */
export class LiveExports {
  private readonly aggregate: LiveAggregate;
  private readonly outputs: Output[];
  private readonly intervalMs: number;
  private readonly clock: EpochClock;
  /** Cancels the next interval flush; undefined when not started or stopped. */
  private cancelTick: (() => void) | undefined;

  constructor(private readonly o: LiveExportsOptions) {
    this.intervalMs = o.intervalMs ?? DEFAULT_EXPORT_INTERVAL_MS;
    this.clock = o.clock ?? systemClock;
    this.aggregate = new LiveAggregate({
      shard: o.shard ?? '1/1',
      common: { ...o.tags, run_id: o.runId, scenario: o.scenario },
      startMs: this.epochMs(),
    });
    this.outputs = o.targets.map((t) => ({
      sender: senderFor(t, this.intervalMs),
      stats: { kind: t.kind, url: displayUrl(t.url), sent: 0, dropped: 0 },
      busy: undefined,
      failing: false,
    }));
  }

  start(): void {
    if (this.cancelTick || this.outputs.length === 0) return;
    // Each tick sets the next on the run's clock; a scheduled callback keeps no process alive.
    const tick = (): void => {
      this.cancelTick = this.clock.schedule(this.intervalMs, () => {
        tick();
        void this.flush();
      });
    };
    tick();
  }

  /** `jobs`: what the session's JobFold made of this record; the exports fold nothing themselves (issue 46). */
  add(record: JobstormRecord, jobs: JobEvents): void {
    this.aggregate.add(record, jobs);
  }

  addViolation(violation: Violation): void {
    this.aggregate.addViolation(violation);
  }

  /** The live thresholds as judged so far: sent with the next flush, one series each. */
  thresholds(statuses: readonly ThresholdStatus[]): void {
    this.aggregate.setThresholds(statuses);
  }

  /** Sends the current totals to every backend that is not still busy with the previous flush. */
  async flush(timeoutMs = this.intervalMs): Promise<void> {
    if (this.outputs.length === 0) return;
    const snapshot = this.aggregate.snapshot(this.epochMs());
    const sends = Promise.all(this.outputs.map((out) => this.sendTo(out, snapshot, timeoutMs)));
    // On a manual clock, time stands still from here until every output is free again (each send is
    // bounded in real time): its driver sees only a send's request, and moving on while the rest ran
    // unseen let the next flush find this one still in flight. Real time does not wait (no underWay).
    this.clock.underWay?.(sends);
    await sends;
  }

  /** Stops the interval, waits for sends in flight, sends the last totals; all within the bound. */
  async stop(): Promise<ExportStats[]> {
    this.cancelTick?.();
    this.cancelTick = undefined;
    const deadline = this.clock.now() + (this.o.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS);
    // Whole ms: a send's timeout is a real timer (AbortSignal.timeout takes integers only).
    const left = () => Math.max(1, Math.ceil(deadline - this.clock.now()));
    await within(Promise.all(this.outputs.map((out) => out.busy ?? Promise.resolve())), left(), this.clock);
    await this.flush(left());
    await within(Promise.all(this.outputs.map((out) => out.sender.close())), left(), this.clock);
    return this.stats();
  }

  /** Whole epoch ms, as backends take them (remote write's timestamps are int64 ms). */
  private epochMs(): number {
    return Math.floor(this.clock.epochNow());
  }

  stats(): ExportStats[] {
    return this.outputs.map((out) => ({ ...out.stats }));
  }

  private async sendTo(
    out: Output,
    snapshot: Parameters<MetricSender['send']>[0],
    timeoutMs: number,
  ): Promise<void> {
    if (out.busy) {
      this.failed(out, 'the previous export is still in flight (slow backend)');
      return;
    }
    const sending = out.sender.send(snapshot, timeoutMs);
    out.busy = sending.then(
      () => undefined,
      () => undefined,
    );
    try {
      await sending;
      out.stats.sent++;
      if (out.failing)
        this.o.onWarning(
          `export ${out.stats.kind} ${out.stats.url} recovered (${String(out.stats.dropped)} flush(es) dropped so far)`,
        );
      out.failing = false;
    } catch (err) {
      this.failed(out, message(err));
    } finally {
      out.busy = undefined;
    }
  }

  private failed(out: Output, error: string): void {
    out.stats.dropped++;
    out.stats.lastError = error;
    if (!out.failing)
      this.o.onWarning(
        `export ${out.stats.kind} ${out.stats.url} failed: ${error}; the run goes on, and the next export that gets through carries the totals`,
      );
    out.failing = true;
  }
}
