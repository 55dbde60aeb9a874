import { z } from 'zod';
import { BYTE_SIZE_PATTERN } from '../../scenario/byte-size.js';
import { DURATION_PATTERN } from '../../scenario/duration.js';
import {
  ByteSizeSchema,
  DurationSchema,
  PositiveDurationSchema,
  RateSchema,
} from '../../scenario/field-schemas.js';

/** The kinds of value whose unit the reference names: zod loses their identity in JSON Schema, so it is marked. */
export type ValueKind = 'duration' | 'size' | 'rate';

/** The part of a JSON Schema node the reference pages read. */
export interface SchemaNode {
  type?: string;
  description?: string;
  default?: unknown;
  enum?: readonly unknown[];
  const?: unknown;
  properties?: Readonly<Record<string, SchemaNode>>;
  required?: readonly string[];
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  anyOf?: readonly SchemaNode[];
  $ref?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  pattern?: string;
  /** Set by `schemaNode` on values of a kind with a unit. */
  'x-value-kind'?: ValueKind;
}

const KINDS = new Map<unknown, ValueKind>([
  [DurationSchema, 'duration'],
  [PositiveDurationSchema, 'duration'],
  [ByteSizeSchema, 'size'],
  [RateSchema, 'rate'],
]);

/** What each value kind accepts, in the schemas' own words. */
export const VALUE_KIND_DESCRIPTIONS: Readonly<Record<ValueKind, string>> = {
  duration: DurationSchema.description ?? '',
  size: ByteSizeSchema.description ?? '',
  rate: RateSchema.description ?? '',
};

/**
 * The JSON Schema of what a user writes (zod 4's own conversion, as `contract export --json-schema`
 * gives editors), with each duration, size and rate marked and every default shown.
 */
export function schemaNode(schema: z.ZodType): SchemaNode {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    override: (ctx) => {
      const kind = KINDS.get(ctx.zodSchema);
      if (kind !== undefined) ctx.jsonSchema['x-value-kind'] = kind;
      // As json-schema.ts does: zod leaves out the default of a field whose input is transformed.
      const def = ctx.zodSchema._zod.def;
      if (def.type === 'default' && ctx.jsonSchema.default === undefined)
        ctx.jsonSchema.default = def.defaultValue;
    },
  });
  return marked(json as SchemaNode);
}

const PATTERN_KINDS = new Map<string, ValueKind>([
  [DURATION_PATTERN.source, 'duration'],
  [BYTE_SIZE_PATTERN.source, 'size'],
]);

/**
 * A duration or size given its own description (`DurationSchema.describe(…)`) is a new schema
 * zod cannot trace back; its string pattern still says what it is.
 */
function marked(node: SchemaNode): SchemaNode {
  const byPattern = node.anyOf
    ?.map((b) => (b.pattern === undefined ? undefined : PATTERN_KINDS.get(b.pattern)))
    .find((k) => k !== undefined);
  const kind = node['x-value-kind'] ?? byPattern;
  const properties =
    node.properties && Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, marked(v)]));
  return {
    ...node,
    'x-value-kind': kind,
    ...(properties ? { properties } : {}),
    ...(node.anyOf ? { anyOf: node.anyOf.map(marked) } : {}),
    ...(node.items ? { items: marked(node.items) } : {}),
  };
}
