import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOpenApiRules } from '../../src/check/openapi-rules.js';
import { ConfigError } from '../../src/core/config-error.js';

/* A user's OpenAPI document read into per-operation rules: codes, and body schemas where zod can say. */

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobstorm-openapi-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function doc(name: string, value: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

const json = (schema: unknown) => ({ description: 'x', content: { 'application/json': { schema } } });

describe('loadOpenApiRules', () => {
  it('reads each operation with an id: its codes, and a schema for a JSON body zod can express', async () => {
    const path = await doc('api.json', {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: {
        '/a': {
          get: {
            operationId: 'GetA',
            responses: {
              200: json({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }),
              404: { description: 'none' },
              500: json('not a schema'),
              502: json(true),
              503: { description: 'text', content: { 'text/plain': { schema: { type: 'string' } } } },
            },
          },
          post: { responses: { 200: { description: 'no id' } } },
          'x-note': null,
        },
      },
    });
    const rules = await loadOpenApiRules(path);
    expect([...rules.keys()]).toEqual(['GetA']);
    const get = rules.get('GetA');
    expect(get?.operationId).toBe('GetA');
    expect([...(get?.responses.keys() ?? [])]).toEqual(['200', '404', '500', '502', '503']);
    const ok = get?.responses.get('200');
    expect(ok?.safeParse({ n: 1 }).success).toBe(true);
    expect(ok?.safeParse({}).success).toBe(false);
    expect(get?.responses.get('404')).toBeUndefined();
    expect(get?.responses.get('500')).toBeUndefined();
    // A boolean schema, or a body that is not JSON: the code only.
    expect(get?.responses.get('502')).toBeUndefined();
    expect(get?.responses.get('503')).toBeUndefined();
  });

  it('judges the code only where zod cannot express the schema', async () => {
    const path = await doc('odd.json', {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: { '/b': { get: { operationId: 'GetB', responses: { 200: json({ type: 'no-such-type' }) } } } },
    });
    const rules = await loadOpenApiRules(path);
    expect(rules.get('GetB')?.responses.has('200')).toBe(true);
    expect(rules.get('GetB')?.responses.get('200')).toBeUndefined();
  });

  it('refuses a document it cannot read, naming the file', async () => {
    const path = await doc('broken.json', '{ not json');
    await expect(loadOpenApiRules(path)).rejects.toBeInstanceOf(ConfigError);
    await expect(loadOpenApiRules(path)).rejects.toMatchObject({
      issues: [
        { where: path, message: expect.stringMatching(/^not a usable OpenAPI document: /) as unknown },
      ],
    });
  });
});
