/*
 * `${NAME}` and `${NAME:-default}` in a scenario's raw text, filled from the `env` map the caller
 * passes (only the CLI reads process.env). `$${` writes a literal `${`. Working on the raw text
 * lets a variable supply a number (`rate: ${RATE:-50}`); an offset map keeps error positions
 * pointing at the user's file, not at the substituted text.
 */

export type Env = Readonly<Record<string, string | undefined>>;

export interface EnvProblem {
  /** Offset of the `${` in the original text. */
  readonly offset: number;
  readonly message: string;
}

interface Replacement {
  /** Start in the interpolated text. */
  readonly at: number;
  readonly length: number;
  /** Start and length in the original text. */
  readonly from: number;
  readonly fromLength: number;
}

export interface Interpolation {
  readonly text: string;
  readonly problems: readonly EnvProblem[];
  /** Maps an offset in `text` back to the original text. */
  toOriginal(offset: number): number;
}

const EXPRESSION = /\$\$\{|\$\{([^}\n]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface InterpolationOptions {
  /** Leave `${…}` alone on lines whose first non-blank character is this (YAML comments). */
  readonly commentPrefix?: string;
}

function commentLines(text: string, prefix: string | undefined): (offset: number) => boolean {
  if (prefix === undefined) return () => false;
  const ranges: [number, number][] = [];
  let start = 0;
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith(prefix)) ranges.push([start, start + line.length]);
    start += line.length + 1;
  }
  return (offset) => ranges.some(([a, b]) => offset >= a && offset < b);
}

function resolve(expr: string, env: Env): { value: string } | { message: string } {
  const split = expr.indexOf(':-');
  const name = split === -1 ? expr : expr.slice(0, split);
  if (!NAME.test(name))
    return {
      message: `\${${expr}} is not a variable reference; write \${NAME} or \${NAME:-default} (or $\${ for a literal)`,
    };
  const value = env[name];
  if (split !== -1) return { value: value === undefined || value === '' ? expr.slice(split + 2) : value };
  if (value === undefined)
    return {
      message: `environment variable ${name} is not set (write \${${name}:-default} to give a default)`,
    };
  return { value };
}

export function interpolateEnv(text: string, env: Env, options: InterpolationOptions = {}): Interpolation {
  const inComment = commentLines(text, options.commentPrefix);
  const problems: EnvProblem[] = [];
  const replacements: Replacement[] = [];
  let out = '';
  let last = 0;
  for (const match of text.matchAll(EXPRESSION)) {
    if (inComment(match.index)) continue;
    let value: string;
    if (match[0] === '$${') {
      value = '${';
    } else {
      const resolved = resolve(match[1] ?? '', env);
      if ('message' in resolved) problems.push({ offset: match.index, message: resolved.message });
      value = 'value' in resolved ? resolved.value : '';
    }
    out += text.slice(last, match.index);
    replacements.push({
      at: out.length,
      length: value.length,
      from: match.index,
      fromLength: match[0].length,
    });
    out += value;
    last = match.index + match[0].length;
  }
  out += text.slice(last);
  return { text: out, problems, toOriginal: (offset) => toOriginal(replacements, offset) };
}

function toOriginal(replacements: readonly Replacement[], offset: number): number {
  let shift = 0;
  for (const r of replacements) {
    if (offset < r.at) break;
    if (offset < r.at + r.length) return r.from;
    shift = r.from + r.fromLength - (r.at + r.length);
  }
  return offset + shift;
}

/** `${VAR}` in every string of an already-built object (scenario modules have no raw text). */
export function interpolateStrings(
  value: unknown,
  env: Env,
  path: (string | number)[] = [],
): { value: unknown; problems: { path: (string | number)[]; message: string }[] } {
  const problems: { path: (string | number)[]; message: string }[] = [];
  const walk = (v: unknown, p: (string | number)[]): unknown => {
    if (typeof v === 'string') {
      const r = interpolateEnv(v, env);
      for (const problem of r.problems) problems.push({ path: p, message: problem.message });
      return r.text;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...p, i]));
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, [...p, k])]));
    }
    return v;
  };
  return { value: walk(value, path), problems };
}
