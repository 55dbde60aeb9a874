import { statSync } from 'node:fs';
import { ConfigError, type ConfigIssue } from '../core/index.js';
import { traceEntries } from './trace-entries.js';
import { TRACE_FORMATS, type TraceFormatName } from './trace-formats.js';
import type { TraceRow, TraceWindow } from './trace-row.js';

/** How many issues `validate` lists before it only counts the rest. */
export const MAX_LISTED_ISSUES = 20;

export interface TraceValidation {
  /** Data rows read (good or bad; a CSV header is not one). */
  readonly rowsChecked: number;
  /** The first `MAX_LISTED_ISSUES` issues, in file order, each at `file:line`. */
  readonly issues: readonly ConfigIssue[];
  /** Issues found beyond those listed. */
  readonly moreIssues: number;
}

export interface TraceOptions {
  /** Bytes read at a time (tests make it small to split characters between reads). */
  readonly chunkBytes?: number;
}

/**
 * A trace file, read again on each call and never held: every method is one streaming pass. The
 * iterators are synchronous and throw a `ConfigError` naming `file:line` at the first bad row;
 * `validate` is the pass that finds them all.
 */
export interface TraceSource {
  readonly file: string;
  readonly format: TraceFormatName;
  /** Rows with `fromMs <= atMs < toMs`; reading stops at the first row past `toMs`. */
  count(window?: TraceWindow): number;
  /** A fresh iterator each call (to loop a trace, or to read one shard's window). */
  rows(window?: TraceWindow): Generator<TraceRow, void, undefined>;
  /** Checks the first `maxRows` rows (all when left out) and reports every issue found. */
  validate(maxRows?: number): TraceValidation;
  /** From the first row's time to the last's (0 for an empty trace); one pass, then kept. */
  spanMs(): number;
  /**
   * The window `from`/`to` ms after the first row, in the trace's own time (`origin`: where it
   * starts). Reads the first row only, and closes the file again.
   */
  window(fromMs?: number, toMs?: number): { origin: number; window: TraceWindow };
}

class FileTraceSource implements TraceSource {
  private span: number | undefined;

  constructor(
    readonly file: string,
    readonly format: TraceFormatName,
    private readonly options: TraceOptions,
  ) {}

  private entries() {
    return traceEntries(this.file, TRACE_FORMATS[this.format], this.format, this.options.chunkBytes);
  }

  *rows(window: TraceWindow = {}): Generator<TraceRow, void, undefined> {
    const from = window.fromMs ?? -Infinity;
    const to = window.toMs ?? Infinity;
    for (const entry of this.entries()) {
      if ('issue' in entry)
        throw new ConfigError([{ where: `${this.file}:${entry.issue.line}`, message: entry.issue.message }]);
      if (entry.row.atMs >= to) return;
      if (entry.row.atMs >= from) yield entry.row;
    }
  }

  window(fromMs = 0, toMs?: number): { origin: number; window: TraceWindow } {
    const rows = this.rows();
    const first = rows.next();
    // Closes the file: an unfinished pass would keep its descriptor open.
    rows.return();
    const start = first.done === true ? 0 : first.value.atMs;
    const origin = start + fromMs;
    return { origin, window: { fromMs: origin, ...(toMs === undefined ? {} : { toMs: start + toMs }) } };
  }

  count(window?: TraceWindow): number {
    let n = 0;
    const rows = this.rows(window);
    while (rows.next().done !== true) n++;
    return n;
  }

  spanMs(): number {
    if (this.span === undefined) {
      let first: number | undefined;
      let last = 0;
      for (const row of this.rows()) {
        first ??= row.atMs;
        last = row.atMs;
      }
      this.span = first === undefined ? 0 : last - first;
    }
    return this.span;
  }

  validate(maxRows = Infinity): TraceValidation {
    const issues: ConfigIssue[] = [];
    let rowsChecked = 0;
    let found = 0;
    for (const entry of this.entries()) {
      if (rowsChecked >= maxRows) break;
      if ('row' in entry) {
        rowsChecked++;
        continue;
      }
      if (!entry.issue.fatal) rowsChecked++;
      if (++found <= MAX_LISTED_ISSUES)
        issues.push({ where: `${this.file}:${entry.issue.line}`, message: entry.issue.message });
    }
    if (rowsChecked === 0 && found === 0) {
      const csv = TRACE_FORMATS[this.format].kind === 'csv';
      const needs = csv ? ` (a ${this.format} trace is its header row, then one row a line)` : '';
      issues.push({ where: this.file, message: `the trace has no rows${needs}` });
      found = 1;
    }
    return { rowsChecked, issues, moreIssues: found - issues.length };
  }
}

/**
 * Opens a trace for reading in the given format. Only checks that the file is there: reading
 * starts with the first pass.
 */
export function openTrace(file: string, format: TraceFormatName, options: TraceOptions = {}): TraceSource {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (err) {
    throw new ConfigError([{ where: file, message: `cannot read the trace (${(err as Error).message})` }]);
  }
  if (!isFile) throw new ConfigError([{ where: file, message: 'the trace is not a file' }]);
  return new FileTraceSource(file, format, options);
}
