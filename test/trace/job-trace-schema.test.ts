import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JOB_TRACE_SCHEMA_PATH, JobTraceEntrySchema, jobTraceJsonSchema } from '../../src/trace/index.js';

const root = new URL('../../', import.meta.url).pathname;

describe('the job trace JSON Schema', () => {
  it(`${JOB_TRACE_SCHEMA_PATH} is what the zod schema generates now`, () => {
    const onDisk = readFileSync(`${root}${JOB_TRACE_SCHEMA_PATH}`, 'utf8');
    expect(
      onDisk === `${JSON.stringify(jobTraceJsonSchema(), null, 2)}\n`,
      `${JOB_TRACE_SCHEMA_PATH} is out of date: run npx tsx test/trace/schema-update.ts`,
    ).toBe(true);
  });

  it('names every field and what each operation may be', () => {
    const schema = jobTraceJsonSchema() as {
      properties: Record<string, { enum?: string[] }>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(Object.keys(schema.properties)).toEqual([
      'at',
      'op',
      'inputBytes',
      'inputTokens',
      'outputTokens',
      'input',
      'policy',
      'webhook',
      'actions',
    ]);
    expect(schema.required).toEqual(['at', 'op']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.op?.enum).toEqual(['run', 'runsync', 'openai']);
  });

  it("takes a job's own input, policy and webhook (what jobstorm fuzz writes), and nothing else in them", () => {
    const row = { at: 0, op: 'run', input: { sleep_ms: 300 }, policy: { ttl: 10_000, lowPriority: true }, webhook: true };
    expect(JobTraceEntrySchema.safeParse(row).success).toBe(true);
    expect(JobTraceEntrySchema.safeParse({ ...row, policy: { ttl: '10s' } }).success).toBe(false);
    expect(JobTraceEntrySchema.safeParse({ ...row, policy: { priority: 1 } }).success).toBe(false);
    expect(JobTraceEntrySchema.safeParse({ ...row, webhook: false }).success).toBe(false);
    expect(JobTraceEntrySchema.safeParse({ ...row, input: [1] }).success).toBe(false);
  });

  it('accepts a job with no actions and refuses actions out of order', () => {
    expect(JobTraceEntrySchema.safeParse({ at: 0, op: 'run' }).success).toBe(true);
    const unordered = {
      at: 0,
      op: 'run',
      actions: [
        { at: 5, op: 'cancel' },
        { at: 1, op: 'status' },
      ],
    };
    expect(JobTraceEntrySchema.safeParse(unordered).success).toBe(false);
  });
});
