import { inspectInput } from '../scenario/input-template.js';
import type { KeyPath, PathIssue } from '../scenario/path-format.js';
import type { IterationState } from './iteration-state.js';
import type { FlowFacts } from './step-kind.js';

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
  const { columns } = flow;
  for (const use of rowUses) {
    const at = [...path, ...use.path];
    if (!flow.hasData) {
      issues.push({
        path: at,
        message: `uses {{row.${use.field}}} but the scenario has no data feed (add data.file)`,
      });
    } else if (columns !== undefined && !columns.has(use.field)) {
      issues.push({
        path: at,
        message: `uses {{row.${use.field}}} but the data feed has no column "${use.field}" (it has ${[...columns].join(', ')})`,
      });
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
