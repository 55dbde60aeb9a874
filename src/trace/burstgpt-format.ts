import { count, isProblem, nonEmpty, nonNegative } from './field-values.js';
import type { CsvFormat } from './trace-format.js';
import type { ParsedLine } from './trace-row.js';

/*
 * BurstGPT: CSV, `Timestamp` in seconds from the trace start (fractions allowed). `Total tokens`
 * is checked to be a count but not kept: it is the other two summed.
 */

const COLUMNS = ['Timestamp', 'Model', 'Request tokens', 'Response tokens', 'Total tokens', 'Log Type'];

function burstRow(fields: readonly string[]): ParsedLine {
  const [timestamp, model, request, response, total, logType] = fields;
  const seconds = nonNegative('Timestamp', timestamp);
  const values = [
    seconds,
    nonEmpty('Model', model ?? ''),
    count('Request tokens', request),
    count('Response tokens', response),
    count('Total tokens', total),
    nonEmpty('Log Type', logType ?? ''),
  ];
  const problems = values.filter(isProblem).map((p) => p.problem);
  if (problems.length > 0) return { problem: problems.join('; ') };
  return {
    atMs: (seconds as number) * 1000,
    model: model?.trim(),
    inputTokens: values[2] as number,
    outputTokens: values[3] as number,
    logType: logType?.trim(),
  };
}

export const burstGptFormat: CsvFormat = {
  kind: 'csv',
  columns: COLUMNS,
  start: () => burstRow,
};
