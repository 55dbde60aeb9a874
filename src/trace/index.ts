export { csvFields } from './csv-line.js';
export {
  JOB_ACTION_OPS,
  JOB_TRACE_OPS,
  JOB_TRACE_SCHEMA_PATH,
  JobTraceEntrySchema,
  jobTraceJsonSchema,
  type JobActionOp,
  type JobTraceAction,
  type JobTraceEntry,
  type JobTraceOp,
} from './job-trace-schema.js';
export { DEFAULT_CHUNK_BYTES, readLines, type NumberedLine } from './line-reader.js';
export type { CsvFormat, JsonLinesFormat, TraceFormat } from './trace-format.js';
export {
  isTraceFormatName,
  TRACE_FORMAT_NAMES,
  TRACE_FORMATS,
  type TraceFormatName,
} from './trace-formats.js';
export type { TraceRow, TraceWindow } from './trace-row.js';
export {
  MAX_LISTED_ISSUES,
  openTrace,
  type TraceOptions,
  type TraceSource,
  type TraceValidation,
} from './trace-source.js';
