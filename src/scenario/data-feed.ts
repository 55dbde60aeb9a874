import { extname } from 'node:path';
import type { ConfigIssue } from '../core/index.js';
import { parseCsv } from './csv.js';

/** One row of a data feed: CSV values are strings, JSON lines keep their types. */
export type DataRow = Readonly<Record<string, unknown>>;

export interface DataFeed {
  /** Absolute path of the feed file. */
  readonly file: string;
  readonly order: 'sequential' | 'random';
  readonly columns: readonly string[];
  readonly rows: readonly DataRow[];
}

/**
 * Data feeds: CSV with a header row (values stay strings) or JSON lines (one object per line,
 * types kept). Every bad row is reported with its line, like scenario errors.
 */
export interface ParsedFeed {
  readonly columns: string[];
  readonly rows: DataRow[];
  /** The 1-based line of the file each row starts on, index for index with `rows`. */
  readonly lines: number[];
  readonly issues: ConfigIssue[];
}

/** A loaded feed's rows as the template checks read them: a bad value is named at its file:line. */
export interface FeedRows {
  /** The feed file as shown in messages. */
  readonly file: string;
  readonly rows: readonly DataRow[];
  /** The line each row starts on, index for index with `rows`. */
  readonly lines: readonly number[];
}

function fromCsv(text: string, file: string): ParsedFeed {
  const { records, problems } = parseCsv(text);
  const issues: ConfigIssue[] = problems.map((p) => ({ where: `${file}:${p.line}`, message: p.message }));
  const [header, ...body] = records;
  if (header === undefined)
    return {
      columns: [],
      rows: [],
      lines: [],
      issues: [...issues, { where: file, message: 'the file is empty (a CSV feed needs a header row)' }],
    };
  const columns = header.fields.map((f) => f.trim());
  columns.forEach((name, i) => {
    if (name === '')
      issues.push({ where: `${file}:${header.line}`, message: `header column ${i + 1} has no name` });
    else if (columns.indexOf(name) !== i)
      issues.push({ where: `${file}:${header.line}`, message: `header column "${name}" appears twice` });
  });
  const rows: DataRow[] = [];
  const lines: number[] = [];
  for (const record of body) {
    if (record.fields.length !== columns.length) {
      issues.push({
        where: `${file}:${record.line}`,
        message: `row has ${record.fields.length} fields, the header has ${columns.length}`,
      });
      continue;
    }
    rows.push(Object.fromEntries(columns.map((name, i) => [name, record.fields[i] ?? ''])));
    lines.push(record.line);
  }
  return { columns, rows, lines, issues: issues.sort((a, b) => lineOf(a.where) - lineOf(b.where)) };
}

function lineOf(where: string): number {
  return Number(/:(\d+)$/.exec(where)?.[1] ?? 0);
}

function fromJsonLines(text: string, file: string): ParsedFeed {
  const issues: ConfigIssue[] = [];
  const rows: DataRow[] = [];
  const lines: number[] = [];
  const columns = new Set<string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      issues.push({ where: `${file}:${i + 1}`, message: `not valid JSON (${(err as Error).message})` });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      issues.push({ where: `${file}:${i + 1}`, message: 'expected a JSON object on each line' });
      return;
    }
    for (const key of Object.keys(value)) columns.add(key);
    rows.push(value as DataRow);
    lines.push(i + 1);
  });
  return { columns: [...columns], rows, lines, issues };
}

export const DATA_FEED_EXTENSIONS = ['.csv', '.jsonl', '.ndjson'] as const;

/** Parses a feed by its extension; `file` is used in issue locations. */
export function parseDataFeed(text: string, file: string): ParsedFeed {
  const ext = extname(file).toLowerCase();
  const parsed = ext === '.csv' ? fromCsv(text, file) : fromJsonLines(text, file);
  if (parsed.issues.length === 0 && parsed.rows.length === 0) {
    return { ...parsed, issues: [{ where: file, message: 'the feed has no rows' }] };
  }
  return parsed;
}

/**
 * Hands rows to iterations: `sequential` goes round in file order, `random` picks uniformly
 * (with the random source the runner passes, so seeded runs repeat).
 */
export function rowCursor(
  rows: readonly DataRow[],
  order: 'sequential' | 'random',
  random: () => number = Math.random,
): () => DataRow {
  if (rows.length === 0) throw new Error('rowCursor needs at least one row');
  let next = 0;
  return () => {
    const i = order === 'random' ? Math.floor(random() * rows.length) : next++ % rows.length;
    return rows[i] ?? {};
  };
}
