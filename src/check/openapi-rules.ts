import { z } from 'zod';
import { ConfigError } from '../core/config-error.js';

/** What a user's OpenAPI document allows for one operation: status codes and their body schemas. */
export interface OpenApiOperationRules {
  operationId: string;
  /** Code (or `default`) → body schema, undefined when the document gives none. */
  responses: Map<string, z.ZodType | undefined>;
}

export type OpenApiRules = Map<string, OpenApiOperationRules>;

type Json = Record<string, unknown>;

function bodySchema(response: Json): z.ZodType | undefined {
  const content = response.content as Record<string, { schema?: unknown }> | undefined;
  const schema = content?.['application/json']?.schema;
  if (!schema || typeof schema !== 'object') return undefined;
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    // A construct zod cannot express: judge the status code only.
    return undefined;
  }
}

/**
 * Loads an OpenAPI document (e.g. the vendor's REST v1) with swagger-parser, resolving every
 * `$ref`, into per-operation rules for `management.openapi`. A broken document is a ConfigError.
 */
export async function loadOpenApiRules(file: string): Promise<OpenApiRules> {
  let api: Json;
  try {
    // Loaded here, not at start-up: only runs given an OpenAPI document need it.
    const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
    api = (await SwaggerParser.dereference(file)) as unknown as Json;
  } catch (err) {
    throw new ConfigError([
      {
        where: file,
        message: `not a usable OpenAPI document: ${err instanceof Error ? err.message : String(err)}`,
      },
    ]);
  }
  const rules: OpenApiRules = new Map();
  for (const item of Object.values((api.paths ?? {}) as Record<string, Record<string, Json | null>>)) {
    // A path item holds extensions (`x-…`) beside its operations, of any value, null too.
    for (const op of Object.values(item)) {
      if (typeof op?.operationId !== 'string') continue;
      const responses = new Map<string, z.ZodType | undefined>();
      for (const [code, response] of Object.entries((op.responses ?? {}) as Record<string, Json>))
        responses.set(code, bodySchema(response));
      rules.set(op.operationId, { operationId: op.operationId, responses });
    }
  }
  return rules;
}
