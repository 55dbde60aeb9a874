import { writeFileSync } from 'node:fs';
import { JOB_TRACE_SCHEMA_PATH, jobTraceJsonSchema } from '../../src/trace/index.js';

/*
 * `npx tsx test/trace/schema-update.ts`: writes the job trace's JSON Schema, generated from its zod
 * schema, where the test (job-trace-schema.test.ts) compares it. The test never writes it.
 */
const root = new URL('../../', import.meta.url).pathname;
writeFileSync(`${root}${JOB_TRACE_SCHEMA_PATH}`, jobTraceSchemaText());

function jobTraceSchemaText(): string {
  return `${JSON.stringify(jobTraceJsonSchema(), null, 2)}\n`;
}
