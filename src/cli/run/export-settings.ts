import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { EXPORT_KINDS, isExportKind, type ExportKind } from '../../core/export-kind.js';
import { DEFAULT_EXPORT_INTERVAL_MS } from '../../export/live-exports.js';
import type { ExportTarget } from '../../export/metric-sender.js';
import { KIND_PREFIXES } from './export-options.js';
import { parseDuration } from '../../scenario/duration.js';
import type { Scenario } from '../../scenario/scenario.js';

export interface ExportArgs {
  export?: string[];
  'export-header'?: string[];
  'export-interval'?: string;
}

export interface ExportSettings {
  targets: ExportTarget[];
  intervalMs: number;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MIN_INTERVAL_MS = 100;
/** `[kind:]Name=ENVVAR`; kind names are plain words, so they go into the pattern as they are. */
const HEADER_FLAG = new RegExp(`^(?:(${EXPORT_KINDS.join('|')}):)?([^=]+)=([A-Za-z_][A-Za-z0-9_]*)$`);

function httpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** `kind=url` from `--export`. */
function parseTarget(spec: string, issues: ConfigIssue[]): { kind: ExportKind; url: string } | undefined {
  const eq = spec.indexOf('=');
  const kind = eq < 0 ? spec : spec.slice(0, eq);
  const url = eq < 0 ? '' : spec.slice(eq + 1);
  if (!isExportKind(kind)) {
    issues.push({ where: '--export', message: `expected ${EXPORT_KINDS.join('|')}=<URL>, got "${spec}"` });
    return undefined;
  }
  if (!httpUrl(url)) {
    issues.push({ where: '--export', message: `${kind} needs an http(s) URL, got "${url}"` });
    return undefined;
  }
  return { kind, url };
}

interface HeaderRule {
  kind?: ExportKind;
  name: string;
  value: string;
}

/** `[kind:]Name=ENVVAR` from `--export-header`: the value is read from the environment, never from argv. */
function parseHeaderFlag(
  spec: string,
  env: Readonly<Record<string, string | undefined>>,
  issues: ConfigIssue[],
): HeaderRule | undefined {
  const m = HEADER_FLAG.exec(spec);
  if (!m?.[2] || !m[3] || !HEADER_NAME.test(m[2])) {
    issues.push({
      where: '--export-header',
      message: `expected ${KIND_PREFIXES}Header-Name=ENV_VAR (the value is read from that variable), got "${spec}"`,
    });
    return undefined;
  }
  const value = env[m[3]];
  if (value === undefined || value === '') {
    issues.push({
      where: '--export-header',
      message: `${m[3]} is not set (it holds the value of the ${m[2]} header)`,
    });
    return undefined;
  }
  const kind = m[1];
  return { ...(kind !== undefined && isExportKind(kind) ? { kind } : {}), name: m[2], value };
}

function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `JOBSTORM_EXPORT_HEADERS=Name=value,Name2=value2`, the format of OTEL_EXPORTER_OTLP_HEADERS. */
function parseHeaderEnv(text: string, issues: ConfigIssue[]): HeaderRule[] {
  const rules: HeaderRule[] = [];
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const name = eq < 0 ? '' : part.slice(0, eq).trim();
    if (!HEADER_NAME.test(name)) {
      // The value may be a secret: name the entry by position, never echo it.
      issues.push({
        where: 'JOBSTORM_EXPORT_HEADERS',
        message: `entry ${String(rules.length + 1)} is not Name=value (comma-separated)`,
      });
      continue;
    }
    rules.push({ name, value: percentDecoded(part.slice(eq + 1).trim()) });
  }
  return rules;
}

/**
 * The run's live exports: the scenario's `export:` list plus every `--export`, auth headers from the
 * environment. Every problem is reported at once; nothing here is ever written to a report.
 */
export function parseExportSettings(
  args: ExportArgs,
  scenario: Scenario | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ExportSettings {
  const issues: ConfigIssue[] = [];
  const specs = [...(scenario?.exports ?? [])];
  for (const spec of args.export ?? []) {
    const t = parseTarget(spec, issues);
    if (t && !specs.some((s) => s.kind === t.kind && s.url === t.url)) specs.push(t);
  }
  const rules: HeaderRule[] = [];
  const fromEnv = env.JOBSTORM_EXPORT_HEADERS;
  if (fromEnv) rules.push(...parseHeaderEnv(fromEnv, issues));
  for (const spec of args['export-header'] ?? []) {
    const rule = parseHeaderFlag(spec, env, issues);
    if (rule) rules.push(rule);
  }
  let intervalMs = DEFAULT_EXPORT_INTERVAL_MS;
  const interval = args['export-interval'];
  if (interval !== undefined) {
    const ms = parseDuration(interval);
    if (ms === undefined || ms < MIN_INTERVAL_MS)
      issues.push({
        where: '--export-interval',
        message: `expected a duration of at least ${String(MIN_INTERVAL_MS)}ms, like 5s, got "${interval}"`,
      });
    else intervalMs = ms;
  }
  if (issues.length > 0) throw new ConfigError(issues);
  const targets = specs.map((s) => {
    const headers: Record<string, string> = {};
    for (const r of rules) if (r.kind === undefined || r.kind === s.kind) headers[r.name] = r.value;
    return { kind: s.kind, url: s.url, headers };
  });
  return { targets, intervalMs };
}
