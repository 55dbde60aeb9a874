import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { managementCheck } from '../../src/check/checks/management-check.js';
import type { OpenApiRules } from '../../src/check/openapi-rules.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { outcome } from './check-outcome.js';
import { ex } from './records.js';

/*
 * `management.openapi` on saved records, at its edges (issue 39): which schema an answer's code
 * takes, answers with no body or no status, operations the document lacks, and what a finding says.
 */

const pod = z.object({ id: z.string(), machine: z.object({ gpu: z.string() }) });
const fault = z.object({ error: z.string() });

function rules(entries: Record<string, Record<string, z.ZodType | undefined>>): OpenApiRules {
  return new Map(
    Object.entries(entries).map(([op, responses]) => [
      op,
      { operationId: op, responses: new Map(Object.entries(responses)) },
    ]),
  );
}

const check = (openapi: OpenApiRules, records: JobstormRecord[]) =>
  outcome(records, { checks: [managementCheck(openapi)] });

describe('management.openapi', () => {
  it('judges an answer by its own code`s schema, not the default`s', () => {
    const doc = rules({ StartPod: { '200': pod, default: z.unknown() } });
    const o = check(doc, [ex('StartPod', 0, 200, { id: 'p', machine: {} })]);
    expect(o.fired).toEqual({ 'management.openapi': 1 });
    expect(o.messages('management.openapi')).toEqual([
      expect.stringMatching(/^StartPod 200 body does not match the OpenAPI document: machine\.gpu: [^;]+$/),
    ]);
  });

  it('judges a code the document leaves out by its default', () => {
    const doc = rules({ StartPod: { '200': pod, default: fault } });
    const o = check(doc, [ex('StartPod', 0, 409, { error: 'busy' }), ex('StartPod', 10, 409, { id: 'p' })]);
    expect(o.fired).toEqual({ 'management.openapi': 1 });
    expect(o.judged['management.openapi']).toBe(2);
    expect(o.messages('management.openapi')[0]).toMatch(
      /^StartPod 409 body does not match the OpenAPI document: error: /,
    );
  });

  it('passes a body its code`s schema takes', () => {
    const doc = rules({ StartPod: { '200': pod } });
    const o = check(doc, [ex('StartPod', 0, 200, { id: 'p', machine: { gpu: 'A100' } })]);
    expect(o.fired).toEqual({});
    expect(o.judged['management.openapi']).toBe(1);
  });

  it('names the body itself when the whole body is wrong', () => {
    const doc = rules({ StartPod: { '200': pod } });
    const o = check(doc, [ex('StartPod', 0, 200, 'started')]);
    expect(o.messages('management.openapi')).toEqual([
      expect.stringMatching(/^StartPod 200 body does not match the OpenAPI document: \(body\): [^;]+$/),
    ]);
  });

  it('lists the declared codes of an answer the document does not declare', () => {
    const doc = rules({ CreateEndpoint: { '200': undefined, '400': fault } });
    const o = check(doc, [ex('CreateEndpoint', 0, 404, { error: 'x' })]);
    expect(o.messages('management.openapi')).toEqual([
      'CreateEndpoint answered 404, which the OpenAPI document does not declare (declared: 200, 400)',
    ]);
  });

  it('takes an answer without a body, or a code without a schema, as matching', () => {
    const doc = rules({ StartPod: { '200': pod, '400': undefined } });
    const o = check(doc, [ex('StartPod', 0, 200), ex('StartPod', 10, 400, { anything: true })]);
    expect(o.fired).toEqual({});
    expect(o.judged['management.openapi']).toBe(2);
  });

  it('judges nothing of a request that got no answer', () => {
    const doc = rules({ StartPod: { '200': pod } });
    const o = check(doc, [ex('StartPod', 0, undefined, undefined, { error: { kind: 'timeout' } })]);
    expect(o.judged['management.openapi']).toBeUndefined();
  });

  it('judges nothing of an operation the document lacks', () => {
    const doc = rules({ StartPod: { '200': pod } });
    const o = check(doc, [ex('CreateEndpoint', 0, 200, { id: 'e' })]);
    expect(o.judged['management.openapi']).toBeUndefined();
  });

  it('judges management operations only, even when the document names a queue operation`s id', () => {
    const doc = rules({ status: { '404': fault }, run: { '200': fault } });
    const o = check(doc, [ex('run', 0, 200, { id: 'a', status: 'IN_QUEUE' }), ex('status', 10, 200, {})]);
    expect(o.judged['management.openapi']).toBeUndefined();
  });
});
