import type { z } from 'zod';
import { JobTraceEntrySchema } from './job-trace-schema.js';
import type { JsonLinesFormat } from './trace-format.js';

/** zod's issues in one line: `field.path: message; …` (a whole-row issue has no path). */
function problemText(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ` : '') + i.message).join('; ');
}

/** jobstorm's own job trace (see job-trace-schema.ts). */
export const jobTraceFormat: JsonLinesFormat = {
  kind: 'json-lines',
  start: () => (value) => {
    const parsed = JobTraceEntrySchema.safeParse(value);
    if (!parsed.success) return { problem: problemText(parsed.error) };
    const { at, ...rest } = parsed.data;
    return { atMs: at, ...rest };
  },
};
