import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../core/config-error.js';
import type { JobstormRecord } from '../../core/record.js';
import type { Summary } from '../../report/summary.js';
import { onForcedExit } from './forced-exit.js';
import { prepareOutFolder } from './out-folder.js';
import { RecordsWriter } from './records-writer.js';
import { writeReportsSafely } from './safe-reports.js';

/**
 * A run's outputs, from before the first request to the last report: the folder is proven
 * writable up front (a ConfigError otherwise, before the emulator starts), records are written
 * whole lines at a time, a failed write stops the run (`interrupt` aborts, `failure` says why),
 * and a forced exit still flushes records and writes what reports it can.
 */
export class RunOutputs {
  readonly interrupt: AbortSignal;
  private readonly failed = new AbortController();
  private readonly writer: RecordsWriter | undefined;
  private releaseForcedExit: (() => void) | undefined;
  private failureReason: string | undefined;
  private reserve: (() => void) | undefined;
  private reportFailures = 0;

  constructor(
    readonly out: string,
    record: boolean,
    userInterrupt: AbortSignal,
    private readonly err: (text: string) => void,
  ) {
    prepareOutFolder(out);
    this.interrupt = AbortSignal.any([userInterrupt, this.failed.signal]);
    if (record) {
      try {
        this.reserve = reserveSpace(join(out, RESERVE_NAME));
      } catch (e) {
        throw new ConfigError([
          {
            where: '--out',
            message: `no room in ${out} for records and reports (${String(RESERVE_BYTES / 1024)} KiB kept for the reports): ${describe(e as Error)}`,
          },
        ]);
      }
      this.writer = new RecordsWriter(join(out, 'records.ndjson'), (e) =>
        this.fail(`records.ndjson: ${describe(e)}`),
      );
    }
  }

  /** True when a report could not be written (the run's results are then not all kept). */
  get reportsFailed(): boolean {
    return this.reportFailures > 0;
  }

  /** Why the output failed mid-run (the run then ends as `output-failed`), if it did. */
  get failure(): string | undefined {
    return this.failureReason;
  }

  add(r: JobstormRecord): void {
    this.writer?.add(r);
  }

  /** On a second Ctrl-C: flush the records, then write the reports `summary()` gives, at once. */
  whenForcedToExit(summary: () => Summary | undefined, stepSummaryPath?: string): void {
    this.releaseForcedExit = onForcedExit(() => {
      this.writer?.flush();
      void this.writer?.close();
      const s = summary();
      if (s) this.report(s, stepSummaryPath);
    });
  }

  /** Nothing will be sent after all (a configuration error came later): take back what was made. */
  discard(): void {
    this.releaseForcedExit?.();
    this.reserve?.();
    this.reserve = undefined;
    if (this.writer) {
      void this.writer.close();
      try {
        unlinkSync(join(this.out, 'records.ndjson'));
      } catch {
        // Not there: nothing to take back.
      }
    }
  }

  /** Closes the records file: call once the run is over, before the reports. */
  async closeRecords(): Promise<void> {
    await this.writer?.close();
  }

  /** Writes each report that fits; says on stderr which did not. */
  writeReports(summary: Summary, stepSummaryPath?: string): void {
    this.releaseForcedExit?.();
    this.report(summary, stepSummaryPath);
  }

  private report(summary: Summary, stepSummaryPath: string | undefined): void {
    this.reserve?.();
    this.reserve = undefined;
    const { failed } = writeReportsSafely(summary, this.out, stepSummaryPath);
    this.reportFailures += failed.length;
    for (const f of failed) this.err(`jobstorm: could not write ${f.path}: ${f.reason}`);
  }

  private fail(reason: string): void {
    if (this.failureReason !== undefined) return;
    this.failureReason = reason;
    this.err(`\njobstorm: output failed (${reason}); stopping the run and writing what reports fit`);
    this.failed.abort(new Error(`output failed: ${reason}`));
  }
}

function describe(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  return typeof code === 'string' && !err.message.startsWith(code) ? `${code}: ${err.message}` : err.message;
}

/**
 * Records can fill a disk; the reports must still fit afterwards. The space they need (about
 * 120 KiB for a large run) is taken up front in a placeholder file and given back just before
 * the reports are written.
 */
const RESERVE_NAME = '.jobstorm-reserve';
const RESERVE_BYTES = 256 * 1024;

function reserveSpace(path: string): () => void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, Buffer.alloc(RESERVE_BYTES));
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(path);
    throw err;
  }
  closeSync(fd);
  return () => {
    try {
      unlinkSync(path);
    } catch {
      // Already gone: nothing to give back.
    }
  };
}
