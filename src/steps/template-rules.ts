import type { FeedRows } from '../scenario/data-feed.js';
import { inspectInput, rowPlaceholder, type RowFieldUse } from '../scenario/input-template.js';
import { rowLength } from '../scenario/length-distribution.js';
import type { KeyPath, PathIssue } from '../scenario/path-format.js';
import { holdsSecret } from '../scenario/secret-fields.js';
import type { IterationState } from './iteration-state.js';
import type { FlowFacts } from './step-kind.js';

/** Bad rows named one by one for a length read from the feed; a long file's rest is counted. */
const BAD_ROWS_LISTED = 5;

/**
 * A row's value as a message shows it: JSON, cut short (a column may hold whole prompts), or not at
 * all when the column's name says it may hold a credential (`api_key`, `auth_token`). A plural
 * `…tokens` is a count (`output_tokens`, the usual name of a length column), not a credential.
 */
function shownValue(value: unknown, field: string): string {
  if (value === undefined) return 'no value';
  if (holdsSecret([field]) && !/tokens$/i.test(field))
    return 'a value not shown (the column can hold a secret)';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/**
 * Every row whose value a `{{length:row.x}}` or `{{text:row.x}}` cannot read as a length, named at
 * its file:line: found before the run, not as an empty max_tokens the worker refuses mid-run.
 */
function lengthIssues(use: RowFieldUse, at: KeyPath, feed: FeedRows): PathIssue[] {
  const written = rowPlaceholder(use);
  const messages: string[] = [];
  let more = 0;
  feed.rows.forEach((row, i) => {
    const value = row[use.field];
    if (rowLength(value) !== undefined) return;
    if (messages.length === BAD_ROWS_LISTED) {
      more++;
      return;
    }
    const line = feed.lines[i];
    const where = line === undefined ? `data row ${i + 1} of ${feed.file}` : `${feed.file}:${line}`;
    messages.push(
      `${written} needs a whole number ≥ 1 in column "${use.field}", but ${where} has ${shownValue(value, use.field)}`,
    );
  });
  if (more > 0)
    messages.push(
      `${written}: and ${more} more ${more === 1 ? 'row' : 'rows'} of ${feed.file} whose "${use.field}" is not a whole number ≥ 1`,
    );
  return messages.map((message) => ({ path: at, message }));
}

/** Placeholders of a templated object (a job's input, an openai body) at `path`. */
export function templateRules(
  template: Record<string, unknown>,
  path: KeyPath,
  flow: FlowFacts,
): PathIssue[] {
  const issues: PathIssue[] = [];
  const { problems, rowUses, traceUses } = inspectInput(template);
  for (const p of problems) issues.push({ path: [...path, ...p.path], message: p.message });
  if (!flow.hasTrace)
    for (const use of traceUses)
      issues.push({
        path: [...path, ...use],
        message: 'uses {{trace.*}} but no phase replays a trace (add a phase with replay:)',
      });
  const { columns, feed } = flow;
  // One placeholder written twice in a string is one set of bad rows, not two.
  const lengthsChecked = new Set<string>();
  for (const use of rowUses) {
    const at = [...path, ...use.path];
    if (!flow.hasData) {
      issues.push({
        path: at,
        message: `uses ${rowPlaceholder(use)} but the scenario has no data feed (add data.file)`,
      });
    } else if (columns !== undefined && !columns.has(use.field)) {
      issues.push({
        path: at,
        message: `uses ${rowPlaceholder(use)} but the data feed has no column "${use.field}" (it has ${[...columns].join(', ')})`,
      });
    } else if (use.as !== undefined && feed !== undefined) {
      const key = JSON.stringify([use.path, use.field]);
      if (!lengthsChecked.has(key)) issues.push(...lengthIssues(use, at, feed));
      lengthsChecked.add(key);
    }
  }
  return issues;
}

/** The object a templated step renders: its compiled form when the flow has one, else a copy. */
export function renderTemplate(
  template: Readonly<Record<string, unknown>>,
  key: object,
  it: IterationState,
): Record<string, unknown> {
  const compiled = it.flow.inputs.get(key);
  return compiled
    ? compiled.render({
        iteration: it.n,
        flow: it.flow.name,
        random: () => it.ctx.random(),
        ...(it.row ? { row: it.row } : {}),
        ...(it.trace ? { trace: it.trace } : {}),
      })
    : { ...template };
}
