import type { TraceSizes } from '../core/job-trace-job.js';

/**
 * One arrival of a trace, whatever the format. `atMs` is milliseconds from the trace's own origin
 * as the file writes it (a format of absolute datetimes: from its first row); the schedule rebases
 * it onto the run's clock. The other fields are there when the format has them.
 */
export interface TraceRow extends TraceSizes {
  /** The file's line the row was read from, so a later problem can still name it. */
  readonly line: number;
  readonly atMs: number;
  /** Mooncake: how many prefix-cache blocks (`hash_ids`) the request names. */
  readonly cacheBlocks?: number;
  /** BurstGPT: the model and the log type, as written. */
  readonly model?: string;
  readonly logType?: string;
}

/** What a format's parser makes of a line: a row without its line number, or what is wrong with it. */
export type RowFields = Omit<TraceRow, 'line'>;
export type ParsedLine = RowFields | { readonly problem: string };

/** Rows with `fromMs <= atMs < toMs`; either end may be left open. */
export interface TraceWindow {
  readonly fromMs?: number;
  readonly toMs?: number;
}
