import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { ConfigError, type ConfigIssue } from '../core/index.js';
import { checkScenarioDocument, type ThresholdIssue } from './document-check.js';
import type { CheckIssue } from './known-file.js';
import { interpolateEnv, type Env } from './env-interpolation.js';
import { formatPath, type PathIssue } from './path-format.js';
import type { Scenario } from './scenario.js';
import { documentValue } from './yaml-document-value.js';
import { YamlLocator } from './yaml-locator.js';

export interface ParseOptions {
  /** Values for `${NAME}` interpolation (the CLI passes process.env). */
  readonly env?: Env;
  /** Reads the data feed; defaults to the file system. */
  readonly readFile?: (path: string) => string;
  /** Judges each threshold expression with the field errors (see DocumentCheckOptions). */
  readonly thresholdIssue?: ThresholdIssue;
  /** Judges each check id or glob the scenario names (see DocumentCheckOptions). */
  readonly checkIssue?: CheckIssue;
}

interface Located {
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

/** Line starts of the text as the user wrote it: positions are reported there, not after interpolation. */
function lineCounter(text: string): LineCounter {
  const lc = new LineCounter();
  lc.addNewLine(0);
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lc.addNewLine(i + 1);
  return lc;
}

export function withPath(issue: PathIssue): string {
  return issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`;
}

// A duplicate key leaves the rest of the document intact; any other syntax error may not, and
// schema messages about a half-parsed document would only mislead.
const RECOVERABLE_YAML_ERRORS = new Set(['DUPLICATE_KEY']);

/**
 * Parses YAML or JSON scenario text (JSON is read by the YAML parser, which keeps positions).
 * Throws one ConfigError listing every problem, each at `file:line:col`.
 */
export function parseScenario(text: string, fileName: string, options: ParseOptions = {}): Scenario {
  const ext = extname(fileName).toLowerCase();
  if (['.ts', '.mts', '.js', '.mjs'].includes(ext)) {
    throw new ConfigError([
      { where: fileName, message: 'a scenario module must be loaded with loadScenario, not parsed as text' },
    ]);
  }
  const isJson = ext === '.json';
  const interpolation = interpolateEnv(text, options.env ?? {}, isJson ? {} : { commentPrefix: '#' });
  const lc = lineCounter(text);
  const position = (offset: number): { line: number; col: number } =>
    lc.linePos(interpolation.toOriginal(offset));
  const found: Located[] = interpolation.problems.map((p) => ({
    ...lc.linePos(p.offset),
    message: p.message,
  }));
  const envLines = new Set(found.map((f) => f.line));

  const doc = parseDocument(interpolation.text, { prettyErrors: false });
  for (const err of doc.errors) {
    found.push({ ...position(err.pos[0]), message: `YAML: ${err.message.split('\n')[0] ?? err.code}` });
  }
  const readFile = options.readFile ?? ((path: string) => readFileSync(path, 'utf8'));
  const located: ConfigIssue[] = [];
  let scenario: Scenario | undefined;
  const value = doc.errors.every((e) => RECOVERABLE_YAML_ERRORS.has(e.code)) ? documentValue(doc) : undefined;
  if (value !== undefined && 'problems' in value)
    for (const p of value.problems) found.push({ ...position(p.offset), message: p.message });
  if (value !== undefined && 'value' in value) {
    const check = checkScenarioDocument(value.value, {
      source: fileName,
      readFile,
      thresholdIssue: options.thresholdIssue,
      checkIssue: options.checkIssue,
    });
    const locator = new YamlLocator(doc);
    for (const issue of check.issues) {
      const at = position(locator.offsetOf(issue.path, issue.atKey));
      // A missing variable was replaced by nothing; what the schema says about that line is noise.
      if (!envLines.has(at.line)) found.push({ ...at, message: withPath(issue) });
    }
    located.push(...check.located);
    scenario = check.scenario;
  }
  if (found.length > 0 || located.length > 0 || scenario === undefined) {
    found.sort((a, b) => a.line - b.line || a.col - b.col || a.message.localeCompare(b.message));
    const issues = found.map((f) => ({ where: `${fileName}:${f.line}:${f.col}`, message: f.message }));
    const unique = issues.filter(
      (i, n) => n === 0 || i.where !== issues[n - 1]?.where || i.message !== issues[n - 1]?.message,
    );
    throw new ConfigError([...unique, ...located]);
  }
  return scenario;
}
