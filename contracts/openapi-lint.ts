import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPI } from 'openapi-types';

export interface LintedOperation {
  method: string;
  path: string;
  operationId?: string;
}

export type LintResult =
  | { ok: true; title: string; version: string; openapi: string; operations: LintedOperation[] }
  | { ok: false; message: string };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Validates an OpenAPI (or Swagger 2) document with swagger-parser: schema, then every `$ref`.
 * The parser's own message (which names the path inside the document) is passed on unchanged.
 */
export async function lintOpenApi(source: string | object): Promise<LintResult> {
  let api: OpenAPI.Document;
  try {
    // validate() takes ownership of the object it is given, so hand it a copy.
    const input = typeof source === 'string' ? source : (structuredClone(source) as OpenAPI.Document);
    api = await SwaggerParser.validate(input);
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  const operations: LintedOperation[] = [];
  const paths = (api.paths ?? {}) as Record<string, Record<string, { operationId?: string } | undefined>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op)
        operations.push({
          method: method.toUpperCase(),
          path,
          ...(op.operationId ? { operationId: op.operationId } : {}),
        });
    }
  }
  const openapi = 'openapi' in api ? api.openapi : `swagger ${api.swagger}`;
  return { ok: true, title: api.info.title, version: api.info.version, openapi, operations };
}
