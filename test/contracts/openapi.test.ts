import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../contracts/openapi.js';
import { lintOpenApi } from '../../contracts/openapi-lint.js';
import { MANAGEMENT_OPENAPI } from '../helpers/management-openapi.js';

describe('OpenAPI export', () => {
  it('generates a 3.1 document that passes swagger-parser validation', async () => {
    const doc = buildOpenApiDocument('9.9.9');
    const result = await lintOpenApi(doc);
    expect(result).toMatchObject({ ok: true, openapi: '3.1.0', version: '9.9.9' });
    if (!result.ok) return;
    const ops = result.operations.map((o) => `${o.method} ${o.path}`);
    expect(ops).toEqual(
      expect.arrayContaining([
        'POST /v2/{endpointId}/run',
        'POST /v2/{endpointId}/runsync',
        'GET /v2/{endpointId}/status/{jobId}',
        'GET /v2/{endpointId}/stream/{jobId}',
        'POST /v2/{endpointId}/cancel/{jobId}',
        'POST /v2/{endpointId}/retry/{jobId}',
        'POST /v2/{endpointId}/purge-queue',
        'GET /v2/{endpointId}/health',
        'POST /v1/pods/{podId}/start',
        'POST /v1/endpoints',
      ]),
    );
  });

  it('carries the schemas: policy bounds and the wait range', () => {
    const doc = buildOpenApiDocument('1') as {
      paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown[] }>>;
    };
    const run = doc.paths['/v2/{endpointId}/run']?.post;
    const text = JSON.stringify(run?.requestBody);
    expect(text).toContain('"minimum":10000');
    expect(text).toContain('"maximum":604800000');
    expect(text).toContain('"required":["input"]');
    const runsync = doc.paths['/v2/{endpointId}/runsync']?.post;
    expect(JSON.stringify(runsync?.parameters)).toContain('"name":"wait"');
    expect(JSON.stringify(runsync?.parameters)).toContain('"default":90000');
  });
});

describe('OpenAPI lint', () => {
  it('accepts an OpenAPI 3.0 document of the management calls, with $refs between its schemas', async () => {
    const result = await lintOpenApi(MANAGEMENT_OPENAPI);
    expect(result).toMatchObject({ ok: true, openapi: '3.0.3' });
    if (result.ok) {
      expect(result.operations).toEqual([
        { method: 'POST', path: '/pods/{podId}/start', operationId: 'StartPod' },
        { method: 'POST', path: '/endpoints', operationId: 'CreateEndpoint' },
      ]);
    }
  });

  it('rejects a document with a dangling $ref and names where it is', async () => {
    const doc = buildOpenApiDocument('1') as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const health = doc.paths['/v2/{endpointId}/health']?.get;
    if (!health) throw new Error('health missing');
    health.responses['200'] = {
      description: 'x',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Missing' } } },
    };
    const result = await lintOpenApi(doc);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/Missing/);
  });
});
