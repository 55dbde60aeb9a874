import { compileFunction } from 'node:vm';
import type { z } from 'zod';
import { util } from 'zod/v4/core';

/**
 * A quick yes for bodies a zod schema accepts, so that the response check, which sees every
 * answer of a run, pays zod's full parse (a payload per field, an output copy of every object,
 * issue bookkeeping) only for bodies that may break the contract.
 *
 * The validator is generated from the schema's own definition as straight-line code (as zod's
 * own object fast path is, without its bookkeeping) and is one-sided: `true` means zod accepts the
 * value; `false` means "ask zod", which then gives the verdict and the message. It knows the few
 * node kinds our contracts use; a schema with anything else (transforms, defaults, pipes, ...)
 * gets no validator and is always parsed by zod. The common checks (integer, bounds, lengths) are
 * inlined where their outcome is certain; every other check, refinements included, runs through
 * zod's own check function. A differential test holds it to zod on every contract schema.
 */
export type FastValidator = (value: unknown) => boolean;

/** The parts of a zod node this reads (zod 4's `_zod` internals, kept to what it needs). */
interface CheckPayload {
  value: unknown;
  issues: unknown[];
}

interface ZodCheckNode {
  _zod: {
    def: { check?: string; when?: (payload: CheckPayload) => boolean };
    check(payload: CheckPayload): unknown;
  };
}

interface ZodNode {
  _zod: {
    def: {
      type: string;
      coerce?: boolean;
      checks?: ZodCheckNode[];
      shape?: Record<string, ZodNode>;
      catchall?: ZodNode;
      innerType?: ZodNode;
      element?: ZodNode;
      keyType?: ZodNode;
      valueType?: ZodNode;
      mode?: string;
      options?: ZodNode[];
      inclusive?: boolean;
      discriminator?: string;
    };
    traits: Set<string>;
    values?: Set<unknown>;
    optin?: string;
  };
}

const cache = new WeakMap<object, FastValidator | null>();

/** The validator for `schema`, or undefined when it has parts this does not know. */
export function fastValidator(schema: z.ZodType): FastValidator | undefined {
  let v = cache.get(schema);
  if (v === undefined) {
    v = compile(schema as unknown as ZodNode) ?? null;
    cache.set(schema, v);
  }
  return v ?? undefined;
}

/** One zod check, run as zod runs it: skipped when its `when` says so, failed by any issue. */
function passes(check: ZodCheckNode, value: unknown): boolean {
  const payload: CheckPayload = { value, issues: [] };
  const when = check._zod.def.when;
  if (when && !when(payload)) return true;
  const result = check._zod.check(payload);
  return !(result instanceof Promise) && payload.issues.length === 0;
}

/** Generated code's surroundings: constants it refers to as `k[i]`, and fresh variable names. */
class Code {
  readonly constants: unknown[] = [];
  private names = 0;

  constant(value: unknown): string {
    this.constants.push(value);
    return `k[${String(this.constants.length - 1)}]`;
  }

  name(): string {
    return `v${String(++this.names)}`;
  }
}

function compile(node: ZodNode): FastValidator | undefined {
  const code = new Code();
  const body = statements(node, 'v0', code);
  if (body === undefined) return undefined;
  // Our own contracts only (never user input) go into this code; every key is JSON-quoted. Compiled
  // in this context, as a plain function of it: V8 optimizes it like any other.
  const make = compileFunction(`return function fastValidator(v0) {\n${body}\nreturn true;\n};`, [
    'k',
    'passes',
    'isPlainObject',
  ]) as (k: unknown[], p: typeof passes, i: (v: unknown) => boolean) => FastValidator;
  return make(code.constants, passes, util.isPlainObject);
}

/** Statements that `return false` unless the value in variable `v` passes `node` and its checks. */
function statements(node: ZodNode, v: string, code: Code): string | undefined {
  const base = baseStatements(node, v, code);
  if (base === undefined) return undefined;
  const checks = [...(node._zod.def.checks ?? [])];
  // A node that is itself a check (z.int(), string formats) runs first, as in zod.
  if (node._zod.traits.has('$ZodCheck')) checks.unshift(node as unknown as ZodCheckNode);
  const out = [base];
  for (const check of checks) {
    const c = checkStatement(check, v, code);
    if (c === undefined) return undefined;
    out.push(c);
  }
  return out.join('\n');
}

interface CheckDef {
  check?: string;
  value?: unknown;
  inclusive?: boolean;
  format?: string;
  minimum?: number;
  maximum?: number;
}

function checkStatement(check: ZodCheckNode, v: string, code: Code): string | undefined {
  const def = check._zod.def as CheckDef;
  // An overwrite changes the value for the checks after it: not a yes-or-no question.
  if (def.check === 'overwrite') return undefined;
  const generic = `if (!passes(${code.constant(check)}, ${v})) return false;`;
  // Inlined only where the outcome is certain; otherwise zod's check decides.
  switch (def.check) {
    case 'greater_than':
      return typeof def.value === 'number'
        ? `if (!(${v} ${def.inclusive === true ? '>=' : '>'} ${String(def.value)})) return false;`
        : generic;
    case 'less_than':
      return typeof def.value === 'number'
        ? `if (!(${v} ${def.inclusive === true ? '<=' : '<'} ${String(def.value)})) return false;`
        : generic;
    case 'number_format':
      return def.format === 'safeint' ? `if (!Number.isSafeInteger(${v})) return false;` : generic;
    case 'min_length':
      // Code points are at least half the UTF-16 units: twice the floor in units always clears it.
      return typeof def.minimum === 'number'
        ? `if (!(typeof ${v} === 'string' && ${v}.length >= ${String(def.minimum * 2)}) && !passes(${code.constant(check)}, ${v})) return false;`
        : generic;
    case 'max_length':
      // Code points are at most the UTF-16 units.
      return typeof def.maximum === 'number'
        ? `if (!(typeof ${v} === 'string' && ${v}.length <= ${String(def.maximum)}) && !passes(${code.constant(check)}, ${v})) return false;`
        : generic;
    default:
      return generic;
  }
}

type Statements = (node: ZodNode, v: string, code: Code) => string | undefined;

function literalStatements(node: ZodNode, v: string, code: Code): string | undefined {
  const values = node._zod.values;
  if (!values) return undefined;
  const [only] = values;
  // One string or boolean: an equality (Set.has and === agree on these).
  if (values.size === 1 && (typeof only === 'string' || typeof only === 'boolean'))
    return `if (${v} !== ${JSON.stringify(only)}) return false;`;
  return `if (!${code.constant(values)}.has(${v})) return false;`;
}

function optionalStatements(node: ZodNode, v: string, code: Code): string | undefined {
  const def = node._zod.def;
  // A defaulted inner schema substitutes a value for undefined, and checks on the optional
  // itself would see undefined: both are zod's business.
  if (!def.innerType || def.innerType._zod.optin === 'defaulted' || (def.checks?.length ?? 0) > 0)
    return undefined;
  const inner = statements(def.innerType, v, code);
  return inner === undefined ? undefined : `if (${v} !== undefined) {\n${inner}\n}`;
}

function nullableStatements(node: ZodNode, v: string, code: Code): string | undefined {
  const inner = node._zod.def.innerType && statements(node._zod.def.innerType, v, code);
  return inner === undefined ? undefined : `if (${v} !== null) {\n${inner}\n}`;
}

function arrayStatements(node: ZodNode, v: string, code: Code): string | undefined {
  const item = code.name();
  const i = code.name();
  const element = node._zod.def.element;
  const inner = element && statements(element, item, code);
  return inner === undefined
    ? undefined
    : `if (!Array.isArray(${v})) return false;\nfor (let ${i} = 0; ${i} < ${v}.length; ${i}++) {\nconst ${item} = ${v}[${i}];\n${inner}\n}`;
}

function unionStatements(node: ZodNode, v: string, code: Code): string | undefined {
  const def = node._zod.def;
  // "Exactly one" unions and discriminated ones pick options by rules of their own.
  if (def.inclusive === false || def.discriminator !== undefined) return undefined;
  const options = (def.options ?? []).map(compile).filter((o): o is FastValidator => o !== undefined);
  if (options.length === 0) return undefined;
  return `if (!(${options.map((o) => `${code.constant(o)}(${v})`).join(' || ')})) return false;`;
}

/** The node kinds the validator knows, by zod's `def.type`; any other gets no validator. */
const BASE = new Map<string, Statements>([
  ['string', (_n, v) => `if (typeof ${v} !== 'string') return false;`],
  ['number', (_n, v) => `if (typeof ${v} !== 'number' || !Number.isFinite(${v})) return false;`],
  ['boolean', (_n, v) => `if (typeof ${v} !== 'boolean') return false;`],
  ['null', (_n, v) => `if (${v} !== null) return false;`],
  ['unknown', () => ''],
  ['any', () => ''],
  ['literal', literalStatements],
  ['enum', literalStatements],
  ['optional', optionalStatements],
  ['nullable', nullableStatements],
  ['array', arrayStatements],
  ['union', unionStatements],
  ['object', objectStatements],
  ['record', recordStatements],
]);

function baseStatements(node: ZodNode, v: string, code: Code): string | undefined {
  const def = node._zod.def;
  if (def.coerce === true) return undefined;
  return BASE.get(def.type)?.(node, v, code);
}

/**
 * Whether an object node needs zod rather than this. Loose objects take
 * any other key; strict ones none. A stripping object hands its checks a copy without the other
 * keys, which this would not reproduce, so it needs zod when it has checks.
 */
function objectNeedsZod(def: ZodNode['_zod']['def']): boolean {
  if (Object.getOwnPropertySymbols(def.shape ?? {}).length > 0) return true;
  if ((def.catchall?._zod.def.checks?.length ?? 0) > 0) return true;
  const extra = def.catchall?._zod.def.type;
  if (extra !== undefined && extra !== 'unknown' && extra !== 'never') return true;
  return extra === undefined && (def.checks?.length ?? 0) > 0;
}

function objectStatements(node: ZodNode, v: string, code: Code): string | undefined {
  const def = node._zod.def;
  const shape = def.shape ?? {};
  if (objectNeedsZod(def)) return undefined;
  const extra = def.catchall?._zod.def.type;
  const out = [`if (typeof ${v} !== 'object' || ${v} === null || Array.isArray(${v})) return false;`];
  for (const key of Object.keys(shape)) {
    const field = shape[key];
    if (!field || key === '__proto__') return undefined;
    const quoted = JSON.stringify(key);
    const f = code.name();
    out.push(`const ${f} = ${v}[${quoted}];`);
    // zod reads presence with `in`; a required key must be there even for z.unknown(). An
    // optional field may be absent, and its statements take undefined.
    if (field._zod.def.type !== 'optional')
      out.push(`if (${f} === undefined && !(${quoted} in ${v})) return false;`);
    const inner = statements(field, f, code);
    if (inner === undefined) return undefined;
    out.push(inner);
  }
  if (extra === 'never') {
    const key = code.name();
    out.push(
      `for (const ${key} in ${v}) if (!${code.constant(new Set(Object.keys(shape)))}.has(${key})) return false;`,
    );
  }
  return out.join('\n');
}

/** `z.record(z.string(), V)`: a plain object whose own string-keyed values all pass V. */
function recordStatements(node: ZodNode, v: string, code: Code): string | undefined {
  const { keyType, valueType, mode } = node._zod.def;
  const key = keyType?._zod.def;
  if (
    !key ||
    key.type !== 'string' ||
    (key.checks?.length ?? 0) > 0 ||
    keyType._zod.traits.has('$ZodCheck') ||
    mode === 'loose' ||
    !valueType
  )
    return undefined;
  const k = code.name();
  const item = code.name();
  const inner = statements(valueType, item, code);
  if (inner === undefined) return undefined;
  return `if (!isPlainObject(${v}) || Object.getOwnPropertySymbols(${v}).length > 0) return false;\nfor (const ${k} of Object.keys(${v})) {\nif (${k} === '__proto__') continue;\nconst ${item} = ${v}[${k}];\n${inner}\n}`;
}
