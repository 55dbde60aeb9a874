import type { TraceSizes } from '../core/job-trace-job.js';
import { lengthDistribution, promptOfLength, rowLength } from './length-distribution.js';

/*
 * Input templating: string values inside a job's `input` may contain `{{row.field}}`,
 * `{{iteration}}`, `{{flow}}`, `{{random:min:max}}`, and lengths of LLM shape, `{{length:<dist>}}`
 * and `{{text:<dist>}}`, where the distribution may be a data-feed column, `{{length:row.field}}`
 * (length-distribution.ts). A template is compiled once into closures
 * so that rendering per arrival does no parsing; subtrees without placeholders are returned as the
 * same (frozen-by-convention) objects, never copied.
 */

export type { TraceSizes } from '../core/job-trace-job.js';

/** What `{{trace.<field>}}` may name: the row's sizes, and a prompt of its input length. */
export const TRACE_FIELDS = ['inputTokens', 'outputTokens', 'prompt'] as const;

export interface TemplateContext {
  /** The trace row of this arrival (trace phases). A missing size renders as an empty string. */
  readonly trace?: TraceSizes;
  /**
   * The data-feed row of this iteration. A missing field renders as an empty string, and so does a
   * `{{length:row.x}}` whose value is no length (the scenario check refuses such rows).
   */
  readonly row?: Readonly<Record<string, unknown>>;
  /** 0-based iteration number of the flow. */
  readonly iteration: number;
  /** Name of the flow being run. */
  readonly flow: string;
  /** Uniform [0, 1) source for {{random}}; the runner passes a seeded one for reproducible runs. */
  readonly random?: () => number;
}

export interface CompiledInput {
  render(ctx: TemplateContext): Record<string, unknown>;
  /** Data-feed fields the template reads. */
  readonly rowFields: readonly string[];
}

export interface TemplateProblem {
  /** Path inside the input object. */
  readonly path: readonly (string | number)[];
  readonly message: string;
}

type Render = (ctx: TemplateContext) => unknown;

const PLACEHOLDER = /\{\{\s*(.*?)\s*\}\}/g;
const NUMBER = '(-?\\d+(?:\\.\\d+)?)';
const RANDOM = new RegExp(`^random:${NUMBER}:${NUMBER}$`);
/** `{{length:lognormal:200:80}}` (a number of tokens) or `{{text:fixed:512}}` (a prompt that long). */
const LENGTH = /^(length|text):(.+)$/;
/** `{{length:row.out_len}}`: the length is the data row's value. */
const ROW_LENGTH = /^row\.(.+)$/;

/** How a placeholder reads a data-feed field: as written, as a number of tokens, or as a prompt. */
type RowFieldForm = 'value' | 'length' | 'text';

function traceField(field: string): Render | string {
  if (field === 'prompt')
    return (ctx) => (ctx.trace?.inputTokens === undefined ? '' : promptOfLength(ctx.trace.inputTokens));
  if (field === 'inputTokens' || field === 'outputTokens') return (ctx) => ctx.trace?.[field] ?? '';
  return `unknown placeholder {{trace.${field}}}; a trace row gives {{trace.${TRACE_FIELDS.join('}}, {{trace.')}}}`;
}

function placeholder(expr: string, uses: PlaceholderUses): Render | string {
  if (expr === 'iteration') return (ctx) => ctx.iteration;
  if (expr.startsWith('trace.')) {
    uses.trace();
    return traceField(expr.slice(6));
  }
  if (expr === 'flow') return (ctx) => ctx.flow;
  if (expr.startsWith('row.') && expr.length > 4) {
    const field = expr.slice(4);
    uses.row(field, 'value');
    return (ctx) => ctx.row?.[field] ?? '';
  }
  const length = LENGTH.exec(expr);
  if (length !== null) return lengthPlaceholder(expr, length[1] === 'text', length[2] ?? '', uses);
  const random = RANDOM.exec(expr);
  if (random !== null) {
    const min = Number(random[1]);
    const max = Number(random[2]);
    if (min > max) return `{{${expr}}}: min is greater than max`;
    if (Number.isInteger(min) && Number.isInteger(max)) {
      return (ctx) => min + Math.floor((ctx.random ?? Math.random)() * (max - min + 1));
    }
    return (ctx) => min + (ctx.random ?? Math.random)() * (max - min);
  }
  return `unknown placeholder {{${expr}}}; use {{row.field}}, {{trace.inputTokens}}, {{trace.outputTokens}}, {{trace.prompt}}, {{iteration}}, {{flow}}, {{random:min:max}}, {{length:<distribution>}}, {{text:<distribution>}}, {{length:row.field}} or {{text:row.field}}`;
}

/** `{{length:<spec>}}` / `{{text:<spec>}}`: a number of tokens, or a prompt that long. */
function lengthPlaceholder(
  expr: string,
  text: boolean,
  spec: string,
  uses: PlaceholderUses,
): Render | string {
  const column = ROW_LENGTH.exec(spec)?.[1];
  if (column !== undefined) {
    uses.row(column, text ? 'text' : 'length');
    return (ctx) => {
      const n = rowLength(ctx.row?.[column]);
      if (n === undefined) return '';
      return text ? promptOfLength(n) : n;
    };
  }
  const draw = lengthDistribution(spec);
  if (typeof draw === 'string') return `{{${expr}}}: ${draw}`;
  return (ctx) => {
    const n = draw(ctx.random ?? Math.random);
    return text ? promptOfLength(n) : n;
  };
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return value === undefined ? '' : JSON.stringify(value);
}

/** Told what a placeholder reads, for validation. */
interface PlaceholderUses {
  row(field: string, form: RowFieldForm): void;
  trace(): void;
}

export interface RowFieldUse {
  readonly field: string;
  /** Path inside the input object. */
  readonly path: readonly (string | number)[];
  /** Set when the field is read as a length (`{{length:row.x}}`, `{{text:row.x}}`), whose rows the check reads. */
  readonly as?: 'length' | 'text';
}

/** The placeholder a use was written as (its spacing aside), for messages. */
export function rowPlaceholder(use: RowFieldUse): string {
  return use.as === undefined ? `{{row.${use.field}}}` : `{{${use.as}:row.${use.field}}}`;
}

class Compiler {
  readonly rowUses: RowFieldUse[] = [];
  /** Where the template reads the trace row (`{{trace.*}}`). */
  readonly traceUses: (readonly (string | number)[])[] = [];
  readonly problems: TemplateProblem[] = [];

  get rowFields(): string[] {
    return [...new Set(this.rowUses.map((u) => u.field))];
  }

  node(value: unknown, path: (string | number)[]): Render | undefined {
    if (typeof value === 'string') return this.text(value, path);
    if (Array.isArray(value)) return this.list(value, path);
    if (typeof value === 'object' && value !== null)
      return this.object(value as Record<string, unknown>, path);
    return undefined;
  }

  /** A string that is exactly one placeholder keeps the value's type ({{random:1:9}} → a number). */
  private text(value: string, path: (string | number)[]): Render | undefined {
    const parts: (string | Render)[] = [];
    let last = 0;
    for (const match of value.matchAll(PLACEHOLDER)) {
      const compiled = placeholder(match[1] ?? '', {
        row: (field, form) =>
          this.rowUses.push(form === 'value' ? { field, path } : { field, path, as: form }),
        trace: () => this.traceUses.push(path),
      });
      if (typeof compiled === 'string') {
        this.problems.push({ path, message: compiled });
        continue;
      }
      if (match.index > last) parts.push(value.slice(last, match.index));
      parts.push(compiled);
      last = match.index + match[0].length;
    }
    if (parts.length === 0) return undefined;
    if (last < value.length) parts.push(value.slice(last));
    const only = parts[0];
    if (parts.length === 1 && typeof only === 'function') return only;
    return (ctx) => parts.map((p) => (typeof p === 'string' ? p : asText(p(ctx)))).join('');
  }

  private list(value: readonly unknown[], path: (string | number)[]): Render | undefined {
    const items = value.map((v, i) => this.node(v, [...path, i]));
    if (items.every((r) => r === undefined)) return undefined;
    return (ctx) => items.map((r, i) => (r === undefined ? value[i] : r(ctx)));
  }

  private object(value: Record<string, unknown>, path: (string | number)[]): Render | undefined {
    const entries = Object.entries(value).map(([k, v]) => [k, v, this.node(v, [...path, k])] as const);
    if (entries.every(([, , r]) => r === undefined)) return undefined;
    return (ctx) => {
      const out: Record<string, unknown> = {};
      for (const [k, v, r] of entries) out[k] = r === undefined ? v : r(ctx);
      return out;
    };
  }
}

/**
 * What is wrong with a template's placeholders, where it reads data-feed fields and where the
 * trace row (for validation).
 */
export function inspectInput(template: unknown): {
  problems: TemplateProblem[];
  rowUses: RowFieldUse[];
  traceUses: (readonly (string | number)[])[];
} {
  const compiler = new Compiler();
  compiler.node(template, []);
  return { problems: compiler.problems, rowUses: compiler.rowUses, traceUses: compiler.traceUses };
}

export function compileInput(template: Readonly<Record<string, unknown>>): CompiledInput {
  const compiler = new Compiler();
  const render = compiler.node(template, []);
  const first = compiler.problems[0];
  if (first !== undefined) throw new Error(`input.${first.path.join('.')}: ${first.message}`);
  return {
    render: render === undefined ? () => template : (ctx) => render(ctx) as Record<string, unknown>,
    rowFields: compiler.rowFields,
  };
}

const compiled = new WeakMap<object, CompiledInput>();

/**
 * Renders a step's `input` for one iteration, compiling it on first use (keyed by the template
 * object, so the runner can call this per arrival at no parsing cost).
 */
export function renderInput(
  template: Readonly<Record<string, unknown>>,
  ctx: TemplateContext,
): Record<string, unknown> {
  let c = compiled.get(template);
  if (c === undefined) {
    c = compileInput(template);
    compiled.set(template, c);
  }
  return c.render(ctx);
}
