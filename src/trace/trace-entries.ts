import { csvFields } from './csv-line.js';
import { readLines } from './line-reader.js';
import type { CsvFormat, TraceFormat } from './trace-format.js';
import type { ParsedLine, TraceRow } from './trace-row.js';

/**
 * What one pass over a trace finds, line by line: a row, or an issue at a line. `fatal` issues
 * end the pass (a wrong CSV header: every row after it would be misread).
 */
export type TraceEntry =
  | { readonly row: TraceRow }
  | { readonly issue: { readonly line: number; readonly message: string; readonly fatal: boolean } };

function headerIssue(format: CsvFormat, name: string, fields: readonly string[]): string | undefined {
  const found = fields.map((f) => f.trim());
  if (found.length === format.columns.length && found.every((f, i) => f === format.columns[i]))
    return undefined;
  return `expected the header "${format.columns.join(',')}" (the ${name} format); found "${found.join(',')}"`;
}

/** Turns each line into a parse result, reading a CSV header first. */
function lineParser(
  format: TraceFormat,
  name: string,
): (text: string) => ParsedLine | { fatal: string } | 'header' {
  if (format.kind === 'json-lines') {
    const parse = format.start();
    return (text) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        return { problem: `not valid JSON (${(err as Error).message})` };
      }
      return parse(value);
    };
  }
  const parse = format.start();
  let headerRead = false;
  return (text) => {
    const fields = csvFields(text);
    if (!Array.isArray(fields)) return fields;
    if (!headerRead) {
      headerRead = true;
      const issue = headerIssue(format, name, fields);
      return issue === undefined ? 'header' : { fatal: issue };
    }
    if (fields.length !== format.columns.length)
      return { problem: `the row has ${fields.length} fields, the header ${format.columns.length}` };
    return parse(fields);
  };
}

/**
 * One streaming pass over a trace file. Rows must come in time order (equal times allowed): the
 * schedule sends them in file order and never sorts, so a row earlier than the one before it would
 * go out late; it is an issue, and the rows after it are judged against the last good one.
 */
export function* traceEntries(
  file: string,
  format: TraceFormat,
  name: string,
  chunkBytes?: number,
): Generator<TraceEntry, void, undefined> {
  const parse = lineParser(format, name);
  let last: TraceRow | undefined;
  for (const { line, text } of readLines(file, chunkBytes)) {
    if (text.trim() === '') continue;
    const parsed = parse(text);
    if (parsed === 'header') continue;
    if ('fatal' in parsed) {
      yield { issue: { line, message: parsed.fatal, fatal: true } };
      return;
    }
    if ('problem' in parsed) {
      yield { issue: { line, message: parsed.problem, fatal: false } };
      continue;
    }
    if (last !== undefined && parsed.atMs < last.atMs) {
      const message = `time goes backwards: ${parsed.atMs} ms comes after ${last.atMs} ms (line ${last.line}); a trace is replayed in file order, so its times may not decrease`;
      yield { issue: { line, message, fatal: false } };
      continue;
    }
    last = { line, ...parsed };
    yield { row: last };
  }
}
