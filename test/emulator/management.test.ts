import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EndpointSchema, ManagementErrorSchema } from '../../contracts/management/schemas.js';
import {
  RunResponseSchema,
  RunsyncResponseSchema,
  StatusResponseSchema,
} from '../../contracts/queue/schemas.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { call, expectStatus, until, valid } from './helpers.js';

/** The vendor's REST v1 document, read where it lives (never copied into the project). */
const OPENAPI_PATH = new URL('../../../shared/reference/rest-v1-openapi.json', import.meta.url);

let h: EmulatorHandle;
let endpointSchema: z.ZodType;
beforeAll(async () => {
  h = await startEmulator({ pods: ['pod-a', 'pod-b'] });
  const doc = (await SwaggerParser.dereference(
    JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as never,
  )) as unknown as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
    >;
  };
  const schema = doc.paths['/endpoints']?.post?.responses['200']?.content?.['application/json']?.schema;
  endpointSchema = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
});
afterAll(async () => {
  await h.close();
});

describe('POST /v1/pods/{podId}/start (StartPod)', () => {
  it('200 for a known pod, 400 for an unknown one, 401 without the key; errors are {"message"}', async () => {
    expectStatus(await call(h, 'POST', `${h.managementUrl}/pods/pod-a/start`), 200);
    const unknown = await call(h, 'POST', `${h.managementUrl}/pods/nope/start`);
    expectStatus(unknown, 400);
    expect(valid(ManagementErrorSchema, unknown.body).message).toMatch(/Pod ID/);
    const noKey = await call(h, 'POST', `${h.managementUrl}/pods/pod-a/start`, { auth: null });
    expectStatus(noKey, 401);
    valid(ManagementErrorSchema, noKey.body);
    expectStatus(await call(h, 'POST', `${h.managementUrl}/pods/pod-b/start`, { auth: 'Bearer wrong' }), 401);
  });
});

describe('POST /v1/endpoints (CreateEndpoint)', () => {
  it('creates a live endpoint that conforms to the REST v1 Endpoint schema and then serves jobs', async () => {
    const r = await call(h, 'POST', `${h.managementUrl}/endpoints`, {
      body: {
        name: 'made-by-test',
        templateId: 'tpl-1',
        gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
        workersMin: 1,
        workersMax: 2,
        idleTimeout: 5,
        dataCenterIds: ['EU-RO-1'],
      },
    });
    expectStatus(r, 200);
    const ep = valid(EndpointSchema, r.body);
    valid(endpointSchema, r.body);
    expect(ep).toMatchObject({
      name: 'made-by-test',
      templateId: 'tpl-1',
      workersMin: 1,
      workersMax: 2,
      idleTimeout: 5,
      dataCenterIds: ['EU-RO-1'],
    });
    const base = h.url.replace(/\/v2\/[^/]+$/, `/v2/${ep.id}`);
    const sync = await call(h, 'POST', `${base}/runsync`, { body: { input: { hello: 'world' } } });
    expectStatus(sync, 200);
    expect(valid(RunsyncResponseSchema, sync.body)).toMatchObject({
      status: 'COMPLETED',
      output: { hello: 'world' },
    });
    const run = await call(h, 'POST', `${base}/run`, { body: { input: { n: 2 } } });
    const { id } = valid(RunResponseSchema, run.body);
    await until(async () => {
      const s = await call(h, 'GET', `${base}/status/${id}`);
      return valid(StatusResponseSchema, s.body).status === 'COMPLETED';
    }, 'job on the new endpoint to complete');
  });

  it('400 {"message"} for an invalid body: no templateId, unknown field, workersMin > workersMax, bad JSON', async () => {
    const bodies: (string | object)[] = [
      { name: 'x' },
      { templateId: 't', colour: 'red' },
      { templateId: 't', workersMin: 3, workersMax: 1 },
      { templateId: 't', idleTimeout: 0 },
      '{"templateId":',
    ];
    for (const body of bodies) {
      const r = await call(
        h,
        'POST',
        `${h.managementUrl}/endpoints`,
        typeof body === 'string' ? { raw: body } : { body },
      );
      expectStatus(r, 400);
      valid(ManagementErrorSchema, r.body);
    }
  });

  it('other management paths are 404 with a message', async () => {
    const r = await call(h, 'GET', `${h.managementUrl}/billing`);
    expectStatus(r, 404);
    valid(ManagementErrorSchema, r.body);
  });
});
