import { count, isProblem, nonNegative } from './field-values.js';
import type { JsonLinesFormat } from './trace-format.js';
import type { ParsedLine } from './trace-row.js';

/*
 * Mooncake's traces: JSON Lines of `{"timestamp": ms, "input_length": n, "output_length": n,
 * "hash_ids": [ints]}`. Checked by hand rather than with zod: these files run to millions of rows
 * and the checks are four.
 */

function cacheBlocks(value: unknown): number | { problem: string } {
  if (Array.isArray(value) && value.every((v) => Number.isInteger(v))) return value.length;
  return { problem: 'hash_ids: expected an array of whole numbers' };
}

function mooncakeRow(value: unknown): ParsedLine {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'expected a JSON object on each line' };
  const row = value as Record<string, unknown>;
  const atMs = nonNegative('timestamp', row.timestamp);
  const inputTokens = count('input_length', row.input_length);
  const outputTokens = count('output_length', row.output_length);
  const blocks = row.hash_ids === undefined ? undefined : cacheBlocks(row.hash_ids);
  const problems = [atMs, inputTokens, outputTokens, blocks].filter(isProblem).map((p) => p.problem);
  if (problems.length > 0) return { problem: problems.join('; ') };
  return {
    atMs: atMs as number,
    inputTokens: inputTokens as number,
    outputTokens: outputTokens as number,
    ...(blocks === undefined ? {} : { cacheBlocks: blocks as number }),
  };
}

export const mooncakeFormat: JsonLinesFormat = {
  kind: 'json-lines',
  start: () => mooncakeRow,
};
