import { count, isProblem } from './field-values.js';
import type { CsvFormat } from './trace-format.js';
import type { ParsedLine } from './trace-row.js';

/*
 * Azure's LLM inference traces: CSV of `TIMESTAMP,ContextTokens,GeneratedTokens`, the time a
 * datetime with a 7-digit fraction (`2023-11-16 18:15:46.6805900`, .NET's ticks of 100 ns) and no
 * zone. Only differences matter, so it is read as UTC and each row's time is taken from the first
 * row's in nanoseconds: epoch milliseconds with four decimals would pass the 15-16 digits a double
 * holds, and seconds and fractions taken apart in milliseconds would round (319.40999… for 319.41).
 */

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;

interface Instant {
  readonly seconds: number;
  readonly nanos: number;
}

function instant(text: string): Instant | { problem: string } {
  const m = DATETIME.exec(text.trim());
  const bad = { problem: `TIMESTAMP: expected a datetime like 2023-11-16 18:15:46.6805900, found "${text}"` };
  if (m === null) return bad;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(ms);
  // Date.UTC rolls 2023-02-30 over into March; a date that does not come back as written is wrong.
  if (
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  )
    return bad;
  return { seconds: ms / 1000, nanos: Number((m[7] ?? '').padEnd(9, '0')) };
}

function azureReader(): (fields: readonly string[]) => ParsedLine {
  let first: Instant | undefined;
  return ([timestamp, context, generated]) => {
    const at = instant(timestamp ?? '');
    const inputTokens = count('ContextTokens', context);
    const outputTokens = count('GeneratedTokens', generated);
    const problems = [at, inputTokens, outputTokens].filter(isProblem).map((p) => p.problem);
    if (problems.length > 0 || isProblem(at)) return { problem: problems.join('; ') };
    first ??= at;
    // Whole nanoseconds apart are exact up to 104 days, longer than any of these traces.
    const atMs = ((at.seconds - first.seconds) * 1e9 + (at.nanos - first.nanos)) / 1e6;
    return { atMs, inputTokens: inputTokens as number, outputTokens: outputTokens as number };
  };
}

export const azureLlmFormat: CsvFormat = {
  kind: 'csv',
  columns: ['TIMESTAMP', 'ContextTokens', 'GeneratedTokens'],
  start: azureReader,
};
