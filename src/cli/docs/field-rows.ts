import { formatDuration } from '../../scenario/duration.js';
import type { SchemaNode, ValueKind } from './json-schema-view.js';
import { cell, code, table } from './markdown.js';

/** One documented field: where it is written, what it takes, its default and unit, and what it does. */
export interface FieldRow {
  field: string;
  type: string;
  default: string;
  unit: string;
  description: string;
}

/** Where a `$ref` to the step schema links (the steps page, relative to the page at hand). */
export interface RowContext {
  stepLink: string;
}

const UNITS: Readonly<Record<ValueKind, string>> = { duration: 'time', size: 'bytes', rate: 'per second' };
const TYPE_NAMES: Readonly<Record<ValueKind, string>> = {
  duration: 'duration',
  size: 'size',
  rate: 'number',
};

/** JSON Schema's stand-in for "no upper bound" on an integer. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** The object a node describes: itself, or its object branch (a section that may also be null). */
export function objectBranch(node: SchemaNode): SchemaNode | undefined {
  if (node.type === 'object') return node;
  return node.anyOf?.find((b) => b.type === 'object');
}

function bounds(node: SchemaNode): string {
  const parts: string[] = [];
  if (node.exclusiveMinimum !== undefined) parts.push(`> ${String(node.exclusiveMinimum)}`);
  else if (node.minimum !== undefined) parts.push(`≥ ${String(node.minimum)}`);
  if (node.exclusiveMaximum !== undefined) parts.push(`< ${String(node.exclusiveMaximum)}`);
  else if (node.maximum !== undefined && node.maximum !== UNBOUNDED) parts.push(`≤ ${String(node.maximum)}`);
  return parts.length > 0 ? ` ${parts.join(', ')}` : '';
}

function objectType(node: SchemaNode): string {
  const values = node.additionalProperties;
  if (node.properties !== undefined && Object.keys(node.properties).length > 0) return 'object';
  if (typeof values === 'object' && values.type !== undefined) return `map of ${values.type}`;
  return 'object';
}

/** The type as a reader names it: `duration`, `integer ≥ 1`, `` `a` \| `b` ``, `list of step`. */
export function typeText(node: SchemaNode, ctx: RowContext): string {
  const kind = node['x-value-kind'];
  if (kind !== undefined) return TYPE_NAMES[kind];
  if (node.$ref !== undefined) return `[step](${ctx.stepLink})`;
  if (node.enum !== undefined) return node.enum.map((v) => code(String(v))).join(' | ');
  if (node.const !== undefined) return code(JSON.stringify(node.const));
  if (node.anyOf !== undefined)
    return node.anyOf
      .filter((b) => b.type !== 'null')
      .map((b) => typeText(b, ctx))
      .join(' or ');
  if (node.type === 'array') return `list of ${node.items ? typeText(node.items, ctx) : 'values'}`;
  if (node.type === 'object') return objectType(node);
  if (node.type === 'integer' || node.type === 'number') return `${node.type}${bounds(node)}`;
  return node.type ?? 'any';
}

/** The unit of a field whose value has one (a duration, a size, a rate), else ''. */
function unitText(node: SchemaNode): string {
  const kind = node['x-value-kind'] ?? node.anyOf?.find((b) => b['x-value-kind'])?.['x-value-kind'];
  return kind === undefined ? '' : UNITS[kind];
}

function defaultText(node: SchemaNode): string {
  const value = node.default;
  if (value === undefined) return '';
  // A section's `{}` default only says its fields have defaults of their own, listed below it.
  if (objectBranch(node)?.properties !== undefined && JSON.stringify(value) === '{}') return '';
  if (node['x-value-kind'] === 'duration' && typeof value === 'number') return code(formatDuration(value));
  return code(typeof value === 'string' ? value : JSON.stringify(value));
}

function row(field: string, node: SchemaNode, required: boolean, ctx: RowContext): FieldRow {
  const description = node.description ?? '';
  return {
    field,
    type: typeText(node, ctx),
    default: defaultText(node),
    unit: unitText(node),
    description: required ? `Required. ${description}` : description,
  };
}

/** The fields of an object node, each followed by the fields nested in it (`target.retry429.base`, `phases[].rate`). */
export function fieldRows(node: SchemaNode, prefix: string, ctx: RowContext): FieldRow[] {
  const object = objectBranch(node);
  const rows: FieldRow[] = [];
  for (const [key, child] of Object.entries(object?.properties ?? {})) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    rows.push(row(path, child, object?.required?.includes(key) === true, ctx));
    if (objectBranch(child)?.properties !== undefined) rows.push(...fieldRows(child, path, ctx));
    else if (child.type === 'array' && child.items && objectBranch(child.items)?.properties !== undefined)
      rows.push(...fieldRows(child.items, `${path}[]`, ctx));
  }
  return rows;
}

/** The rows as a table. */
export function fieldTable(rows: readonly FieldRow[]): string {
  return table(
    ['field', 'type', 'default', 'unit', 'description'],
    rows.map((r) => [code(r.field), cell(r.type), cell(r.default), r.unit, cell(r.description)]),
  );
}
