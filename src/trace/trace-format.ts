import type { ParsedLine } from './trace-row.js';

/** A trace of JSON Lines: one object a line, parsed before the format sees it. */
export interface JsonLinesFormat {
  readonly kind: 'json-lines';
  /** A fresh parser for each pass over the file (a format may read times against its first row). */
  start(): (value: unknown) => ParsedLine;
}

/** A CSV trace: a header row that must be exactly `columns`, then one row a line. */
export interface CsvFormat {
  readonly kind: 'csv';
  readonly columns: readonly string[];
  start(): (fields: readonly string[]) => ParsedLine;
}

/** One trace format: one file each, listed once in trace-formats.ts (DESIGN.md rule 6). */
export type TraceFormat = JsonLinesFormat | CsvFormat;
