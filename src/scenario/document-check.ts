import { dirname, isAbsolute, join } from 'node:path';
import { ConfigError, type ConfigIssue } from '../core/index.js';
import { isTraceFormatName, openTrace, type TraceSource } from '../trace/index.js';
import { crossFieldIssues } from './cross-field-rules.js';
import { DATA_FEED_EXTENSIONS, parseDataFeed, type FeedRows } from './data-feed.js';
import { normalizeScenario, fileBesideScenario } from './normalization.js';
import type { KeyPath, PathIssue } from './path-format.js';
import { ScenarioSchema } from './scenario-schema.js';
import type { DataFeed, Scenario } from './scenario.js';
import { schemaIssues, stepIssues } from './schema-issues.js';
import { holdsSecret } from './secret-fields.js';
import { hideValue } from './value-description.js';
import { ms } from './raw-value.js';
import { loadKnownOf, skipIssues } from './checks-section.js';
import type { CheckIssue } from './known-file.js';

/**
 * Validates a scenario document (the parsed YAML/JSON, or a module's default export) in full:
 * the schema, each step, the data feed and the cross-field rules, collecting every problem.
 */

export interface DocumentCheckOptions {
  /** The scenario file as the user named it; the data feed path is relative to it. */
  readonly source: string;
  readonly readFile: (path: string) => string;
  /**
   * Judges one threshold expression (the thresholds grammar lives outside this layer), so a bad
   * threshold is reported with the field errors, at its line, not only once they are fixed.
   */
  readonly thresholdIssue?: ThresholdIssue;
  /**
   * Judges one check id or glob (`checks.skip`, the known file's entries): the catalog lives
   * outside this layer. Without it, ids are not checked against the catalog.
   */
  readonly checkIssue?: CheckIssue;
}

/** What is wrong with one threshold expression, or undefined when nothing is. */
export type ThresholdIssue = (expression: string) => string | undefined;

export interface DocumentCheck {
  /** Problems to locate in the scenario source. */
  readonly issues: readonly PathIssue[];
  /** Problems already located (in the data feed file). */
  readonly located: readonly ConfigIssue[];
  readonly scenario?: Scenario;
}

function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Zod's view of a step (a 13-way union) is replaced by `stepIssues`. */
function isStepPath(path: KeyPath): boolean {
  return path.length >= 4 && path[0] === 'flows' && path[2] === 'steps' && typeof path[3] === 'number';
}

function allStepIssues(doc: unknown): PathIssue[] {
  if (!isRecord(doc) || !Array.isArray(doc.flows)) return [];
  return doc.flows.flatMap((flow: unknown, i) =>
    isRecord(flow) && Array.isArray(flow.steps)
      ? flow.steps.flatMap((s: unknown, j) => stepIssues(s, ['flows', i, 'steps', j]))
      : [],
  );
}

interface FeedLoad {
  readonly feed?: DataFeed;
  /** The feed's rows with their lines and the file as shown, for the template checks. */
  readonly rows?: FeedRows;
  readonly issues: PathIssue[];
  readonly located: ConfigIssue[];
}

function loadFeed(doc: unknown, options: DocumentCheckOptions): FeedLoad {
  const data = isRecord(doc) ? doc.data : undefined;
  if (!isRecord(data) || typeof data.file !== 'string' || data.file === '')
    return { issues: [], located: [] };
  const at = ['data', 'file'];
  const lower = data.file.toLowerCase();
  if (!DATA_FEED_EXTENSIONS.some((ext) => lower.endsWith(ext))) {
    return {
      issues: [
        { path: at, message: `expected a ${DATA_FEED_EXTENSIONS.join(', ')} file, got "${data.file}"` },
      ],
      located: [],
    };
  }
  const shown = isAbsolute(data.file) ? data.file : join(dirname(options.source), data.file);
  const file = fileBesideScenario(data.file, options.source);
  let text: string;
  try {
    text = options.readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return { issues: [{ path: at, message: `cannot read the data feed ${shown} (${code})` }], located: [] };
  }
  const parsed = parseDataFeed(text, shown);
  const order = data.order === 'random' ? 'random' : 'sequential';
  return {
    feed: { file, order, columns: parsed.columns, rows: parsed.rows },
    rows: { file: shown, rows: parsed.rows, lines: parsed.lines },
    issues: [],
    located: parsed.issues,
  };
}

/**
 * Rows of a trace checked before the load starts; a longer trace has the rest checked as it plays
 * (a bad row then stops the arrivals), so a huge file does not hold up the start.
 */
export const TRACE_ROWS_CHECKED_AT_LOAD = 100_000;

/**
 * What is wrong with a replay's `from`/`to` window that holds no row of the trace, or undefined:
 * such a phase would send nothing and its run would judge nothing. Times count from the first
 * row; reading stops at the window's first row (or its end), so a late window reads up to it.
 */
function emptyWindow(trace: TraceSource, replay: Readonly<Record<string, unknown>>): string | undefined {
  if (replay.from === undefined && replay.to === undefined) return undefined;
  const from = replay.from === undefined ? 0 : ms(replay.from);
  const to = replay.to === undefined ? undefined : ms(replay.to);
  // A malformed duration is the schema's to report.
  if (from === undefined || (replay.to !== undefined && to === undefined)) return undefined;
  try {
    const rows = trace.rows(trace.window(from, to).window);
    const found = rows.next().done !== true;
    rows.return();
    if (found) return undefined;
  } catch (err) {
    // A bad row past the ones checked at load: the replay stops there and says so.
    if (err instanceof ConfigError) return undefined;
    throw err;
  }
  // As written (a duration string, or 0): `ms` above read both.
  const written = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  const window = `from ${written(replay.from ?? 0)}${replay.to === undefined ? '' : ` to ${written(replay.to)}`}`;
  return `the window ${window} holds no row of the trace (from and to count from its first row): the phase would send nothing`;
}

/**
 * The line of a job trace's first OpenAI job (among the rows checked at load) when no `traceJob`
 * step of the scenario says how to send one: a body cannot be made up, and a job left unsent
 * would make the replay quietly lighter than the trace.
 */
function unsentOpenAi(trace: TraceSource, doc: unknown): number | undefined {
  const flows = isRecord(doc) && Array.isArray(doc.flows) ? (doc.flows as unknown[]) : [];
  if (hasOpenAiReplay(flows)) return undefined;
  let n = 0;
  for (const row of trace.rows()) {
    if (row.op === 'openai') return row.line;
    if (++n >= TRACE_ROWS_CHECKED_AT_LOAD) break;
  }
  return undefined;
}

/** Some `traceJob` step, at any depth of loops, has an `openai` payload. */
function hasOpenAiReplay(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasOpenAiReplay);
  if (!isRecord(value)) return false;
  if (isRecord(value.traceJob) && value.traceJob.openai !== undefined) return true;
  return Object.values(value).some(hasOpenAiReplay);
}

/** Every replayed trace is opened and its first rows validated, each problem at its file:line. */
function traceIssues(doc: unknown, source: string): FeedLoad {
  const phases = isRecord(doc) && Array.isArray(doc.phases) ? (doc.phases as unknown[]) : [];
  const out: FeedLoad = { issues: [], located: [] };
  phases.forEach((phase, i) => {
    const replay = isRecord(phase) ? phase.replay : undefined;
    if (!isRecord(replay) || typeof replay.file !== 'string' || replay.file === '') return;
    if (typeof replay.format !== 'string' || !isTraceFormatName(replay.format)) return;
    const at = ['phases', i, 'replay'];
    try {
      const trace = openTrace(fileBesideScenario(replay.file, source), replay.format);
      const checked = trace.validate(TRACE_ROWS_CHECKED_AT_LOAD);
      if (checked.issues.length === 0) {
        const empty = emptyWindow(trace, replay);
        if (empty !== undefined) out.issues.push({ path: at, message: `${replay.file}: ${empty}` });
        const unsent = replay.format === 'jobstorm' ? unsentOpenAi(trace, doc) : undefined;
        if (unsent !== undefined)
          out.issues.push({
            path: at,
            message: `${replay.file}:${String(unsent)} is an openai job, but no traceJob step says how to send one: add traceJob: { openai: { body: … } }`,
          });
        return;
      }
      const more = checked.moreIssues > 0 ? `, ${String(checked.moreIssues)} more not listed` : '';
      out.issues.push({
        path: at,
        message: `the ${replay.format} trace ${replay.file} has bad rows (listed at their lines${more})`,
      });
      out.located.push(...checked.issues);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      const problem = err.issues.map((x) => x.message).join('; ');
      out.issues.push({ path: [...at, 'file'], message: `${replay.file}: ${problem}` });
    }
  });
  return out;
}

/** Each threshold expression as written, judged by the caller's grammar. */
function thresholdIssues(doc: unknown, judge: ThresholdIssue | undefined): PathIssue[] {
  if (!judge || !isRecord(doc) || !Array.isArray(doc.thresholds)) return [];
  return doc.thresholds.flatMap((entry: unknown, i): PathIssue[] => {
    const text = isRecord(entry) ? entry.threshold : entry;
    const problem = typeof text === 'string' && text.trim() !== '' ? judge(text) : undefined;
    const path = isRecord(entry) ? ['thresholds', i, 'threshold'] : ['thresholds', i];
    return problem === undefined ? [] : [{ path, message: problem }];
  });
}

/** The value at `path` in the document as written (before defaults), or undefined. */
function valueAt(doc: unknown, path: KeyPath): unknown {
  let v = doc;
  for (const segment of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, segment)) return undefined;
    v = (v as Record<string | number, unknown>)[segment];
  }
  return v;
}

/**
 * A string of placeholders only (`{{length:row.out_len}}`) names where a value comes from and holds
 * no credential, so messages may quote it: `max_tokens` matches the secret names by its "token".
 */
const ONLY_PLACEHOLDERS = /^(?:\s*\{\{[^{}]*\}\})+\s*$/;

/** Every message about a field that can hold a secret loses that field's value, whoever wrote it. */
function withoutSecrets(issues: readonly PathIssue[], doc: unknown): PathIssue[] {
  return issues.map((i) => {
    if (!holdsSecret(i.path)) return i;
    const value = valueAt(doc, i.path);
    if (typeof value === 'string' && ONLY_PLACEHOLDERS.test(value)) return i;
    return { ...i, message: hideValue(i.message, value) };
  });
}

export function checkScenarioDocument(doc: unknown, options: DocumentCheckOptions): DocumentCheck {
  const feed = loadFeed(doc, options);
  const traces = traceIssues(doc, options.source);
  const known = loadKnownOf(doc, options.source, options.readFile, options.checkIssue);
  const issues = withoutSecrets(
    [
      ...schemaIssues(ScenarioSchema, doc).filter((i) => !isStepPath(i.path)),
      ...allStepIssues(doc),
      ...feed.issues,
      ...traces.issues,
      ...crossFieldIssues(doc, feed.feed === undefined ? undefined : new Set(feed.feed.columns), feed.rows),
      ...thresholdIssues(doc, options.thresholdIssue),
      ...skipIssues(doc, options.checkIssue),
      ...known.issues,
    ],
    doc,
  );
  const located = [...feed.located, ...traces.located, ...known.located];
  if (issues.length > 0 || located.length > 0) return { issues, located };
  const parsed = ScenarioSchema.safeParse(doc);
  // Unreachable unless the checks above and the schema disagree; still report, never crash.
  if (!parsed.success) return { issues: withoutSecrets(schemaIssues(ScenarioSchema, doc), doc), located: [] };
  return {
    issues: [],
    located: [],
    scenario: normalizeScenario(parsed.data, options.source, feed.feed, known.known),
  };
}
