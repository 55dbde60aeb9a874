import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  EndpointCreateInputSchema,
  EndpointSchema,
  ManagementErrorSchema,
} from '../../contracts/management/schemas.js';
import {
  RunResponseSchema,
  RunsyncResponseSchema,
  StatusResponseSchema,
} from '../../contracts/queue/schemas.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { fixtureSchema, MANAGEMENT_OPENAPI, type FixtureProperty } from '../helpers/management-openapi.js';
import { call, expectStatus, until, valid } from './helpers.js';

let h: EmulatorHandle;
let endpointSchema: z.ZodType;
beforeAll(async () => {
  h = await startEmulator({ pods: ['pod-a', 'pod-b'] });
  const doc = (await SwaggerParser.dereference(MANAGEMENT_OPENAPI)) as unknown as {
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

/** The fixture's CreateEndpoint body: the facts the emulator's route and the contract must agree with. */
const createInput = fixtureSchema('EndpointCreateInput');
const create = (body: object) => call(h, 'POST', `${h.managementUrl}/endpoints`, { body });

/** A value at each bound the fixture sets on a field, and one a step past it. */
function edges(p: FixtureProperty): { inside: unknown; outside: unknown }[] {
  const out: { inside: unknown; outside: unknown }[] = [];
  if (p.minimum !== undefined) out.push({ inside: p.minimum, outside: p.minimum - 1 });
  if (p.maximum !== undefined) out.push({ inside: p.maximum, outside: p.maximum + 1 });
  if (p.maxLength !== undefined)
    out.push({ inside: 'n'.repeat(p.maxLength), outside: 'n'.repeat(p.maxLength + 1) });
  return out;
}

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

  it("applies the fixture's defaults to an endpoint made from templateId alone", async () => {
    const endpoint = fixtureSchema('Endpoint').properties;
    // Only a default the Endpoint carries back can be seen in the answer (vcpuCount is not one).
    const defaults = Object.fromEntries(
      Object.entries(createInput.properties).flatMap(([k, p]) =>
        p.default !== undefined && k in endpoint ? [[k, p.default]] : [],
      ),
    );
    expect(Object.keys(defaults).sort()).toEqual([
      'computeType',
      'gpuCount',
      'idleTimeout',
      'scalerType',
      'scalerValue',
    ]);
    const r = await create({ templateId: 'tpl-defaults' });
    expectStatus(r, 200);
    expect(r.body).toMatchObject(defaults);
  });

  it('accepts each bound the fixture sets on a field and refuses one step past it', async () => {
    const bounded = Object.entries(createInput.properties).flatMap(([field, p]) =>
      edges(p).map((e) => ({ field, ...e })),
    );
    expect(new Set(bounded.map((b) => b.field))).toEqual(
      new Set(['name', 'gpuCount', 'workersMin', 'workersMax', 'idleTimeout', 'scalerValue']),
    );
    for (const { field, inside, outside } of bounded) {
      const at = await create({ templateId: 'tpl-edge', [field]: inside });
      expect(at.status, `${field}=${JSON.stringify(inside)}: ${at.text}`).toBe(200);
      const past = await create({ templateId: 'tpl-edge', [field]: outside });
      expect(past.status, `${field}=${JSON.stringify(outside)}`).toBe(400);
      valid(ManagementErrorSchema, past.body);
    }
  });

  it('other management paths are 404 with a message', async () => {
    const r = await call(h, 'GET', `${h.managementUrl}/billing`);
    expectStatus(r, 404);
    valid(ManagementErrorSchema, r.body);
  });
});

describe("the contract's EndpointCreateInput", () => {
  it("has the fixture's fields, required fields and enum values", () => {
    const shape = EndpointCreateInputSchema.shape;
    expect(Object.keys(shape).sort()).toEqual(Object.keys(createInput.properties).sort());
    const required = Object.entries(shape).flatMap(([k, field]) =>
      field.safeParse(undefined).success ? [] : [k],
    );
    expect(required).toEqual(createInput.required);
    for (const [k, p] of Object.entries(createInput.properties)) {
      if (!p.enum) continue;
      const field = shape[k as keyof typeof shape];
      for (const value of p.enum) expect(field.safeParse(value).success, `${k}=${value}`).toBe(true);
      expect(field.safeParse(`not ${p.enum.join(' or ')}`).success, k).toBe(false);
    }
  });
});
