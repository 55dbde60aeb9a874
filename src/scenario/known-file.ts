import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { expiryMs, type KnownDeviation, type KnownDeviations } from '../core/known-deviation.js';
import { MANAGEMENT_OPERATIONS, QUEUE_OPERATIONS } from '../core/operation.js';
import { formatPath, type PathIssue } from './path-format.js';
import { schemaIssues } from './schema-issues.js';
import { documentValue } from './yaml-document-value.js';
import { YamlLocator } from './yaml-locator.js';

/**
 * A known-deviations file (`--known`, the scenario's `checks.known`; issue 53): the findings a team
 * accepts for now, each with why, who and until when. Validated once, every problem at its
 * file:line:column; an unknown check id gets a did-you-mean.
 */

/** What is wrong with a check id or glob (the catalog lives outside this layer), or undefined. */
export type CheckIssue = (pattern: string) => string | undefined;

/** Whether `text` compiles as a regular expression; its error otherwise. */
function regexProblem(text: string): string | undefined {
  try {
    new RegExp(text);
    return undefined;
  } catch (err) {
    return `not a regular expression: ${(err as Error).message}`;
  }
}

const EXPIRES_FORMS =
  'a date (2026-03-31, holds through that day, UTC) or an instant with its offset (2026-03-31T18:00:00Z)';

const KnownEntrySchema = z
  .strictObject({
    check: z
      .string()
      .min(1)
      .describe('The check id, or a glob of ids (request.*), whose findings it accepts.'),
    operation: z
      .enum([...QUEUE_OPERATIONS, ...MANAGEMENT_OPERATIONS])
      .optional()
      .describe('Only findings about this operation.'),
    status: z
      .number()
      .int()
      .min(100)
      .max(599)
      .optional()
      .describe('Only findings whose cited exchange was answered with this status code.'),
    message: z
      .string()
      .min(1)
      .optional()
      .superRefine((m, ctx) => {
        const problem = m === undefined ? undefined : regexProblem(m);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      })
      .describe("A regular expression the finding's message must match."),
    why: z.string().trim().min(1).describe('Why it is accepted for now (a ticket, a plan).'),
    who: z.string().trim().min(1).describe('Who accepted it.'),
    expires: z
      .string()
      .optional()
      .superRefine((e, ctx) => {
        if (e !== undefined && expiryMs(e) === undefined)
          ctx.addIssue({ code: 'custom', message: `expected ${EXPIRES_FORMS}, got "${e}"` });
      })
      .describe(`When it stops matching: ${EXPIRES_FORMS}. Left out: never.`),
  })
  .describe('One accepted deviation.');

const KnownFileSchema = z
  .strictObject({
    deviations: z
      .array(KnownEntrySchema)
      .describe('The accepted deviations; the first that matches a finding takes it.'),
  })
  .describe('A jobstorm known-deviations file.');

/** Every entry's check pattern, judged by the caller's catalog. */
function checkIssues(doc: unknown, judge: CheckIssue): PathIssue[] {
  const list = (doc as { deviations?: unknown } | null)?.deviations;
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: unknown, i): PathIssue[] => {
    const check = (entry as { check?: unknown } | null)?.check;
    const problem = typeof check === 'string' && check !== '' ? judge(check) : undefined;
    return problem === undefined ? [] : [{ path: ['deviations', i, 'check'], message: problem }];
  });
}

/** An entry as the file gave it, without keys it left out. */
function entryOf(e: z.output<typeof KnownEntrySchema>): KnownDeviation {
  return {
    check: e.check,
    ...(e.operation === undefined ? {} : { operation: e.operation }),
    ...(e.status === undefined ? {} : { status: e.status }),
    ...(e.message === undefined ? {} : { message: e.message }),
    why: e.why,
    who: e.who,
    ...(e.expires === undefined ? {} : { expires: e.expires }),
  };
}

/** Parses known-deviations text (YAML or JSON); throws one ConfigError with every problem, located. */
export function parseKnownFile(text: string, file: string, judge: CheckIssue): KnownDeviations {
  const doc = parseDocument(text, { prettyErrors: false });
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1);
  const at = (offset: number): string => {
    const p = lines.linePos(offset);
    return `${file}:${String(p.line)}:${String(p.col)}`;
  };
  const issues: ConfigIssue[] = doc.errors.map((e) => ({
    where: at(e.pos[0]),
    message: `YAML: ${e.message.split('\n')[0] ?? e.code}`,
  }));
  const value = issues.length === 0 ? documentValue(doc) : undefined;
  if (value !== undefined && 'problems' in value)
    issues.push(...value.problems.map((p) => ({ where: at(p.offset), message: p.message })));
  if (value === undefined || !('value' in value)) throw new ConfigError(issues);
  const locator = new YamlLocator(doc);
  for (const i of [...schemaIssues(KnownFileSchema, value.value), ...checkIssues(value.value, judge)])
    issues.push({
      where: at(locator.offsetOf(i.path, i.atKey)),
      message: i.path.length ? `${formatPath(i.path)}: ${i.message}` : i.message,
    });
  const parsed = KnownFileSchema.safeParse(value.value);
  if (issues.length > 0 || !parsed.success) throw new ConfigError(issues);
  return { file, entries: parsed.data.deviations.map(entryOf) };
}

/** Reads and parses a known-deviations file (`file` as the user named it). */
export function loadKnownFile(file: string, judge: CheckIssue, path: string = file): KnownDeviations {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError([{ where: file, message: `cannot read the known-deviations file (${code})` }]);
  }
  return parseKnownFile(text, file, judge);
}
