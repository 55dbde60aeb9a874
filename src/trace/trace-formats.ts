import { azureLlmFormat } from './azure-llm-format.js';
import { burstGptFormat } from './burstgpt-format.js';
import { jobTraceFormat } from './job-trace-format.js';
import { mooncakeFormat } from './mooncake-format.js';
import type { TraceFormat } from './trace-format.js';

/** Every trace format by the name a user gives it: adding one is its file and one line here. */
export const TRACE_FORMATS = {
  mooncake: mooncakeFormat,
  'azure-llm': azureLlmFormat,
  burstgpt: burstGptFormat,
  jobstorm: jobTraceFormat,
} as const satisfies Readonly<Record<string, TraceFormat>>;

export type TraceFormatName = keyof typeof TRACE_FORMATS;

export const TRACE_FORMAT_NAMES = Object.keys(TRACE_FORMATS) as TraceFormatName[];

export function isTraceFormatName(name: string): name is TraceFormatName {
  return Object.hasOwn(TRACE_FORMATS, name);
}
