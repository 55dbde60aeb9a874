import { stringify } from 'yaml';
import { STEP_KINDS, stepKind, type ListedKind } from '../../steps/index.js';
import { fieldRows, fieldTable, objectBranch, typeText } from './field-rows.js';
import { schemaNode, type SchemaNode } from './json-schema-view.js';
import { generatedNotice, page } from './markdown.js';
import { valueKindsTable } from './scenario-page.js';

const CONTEXT = { stepLink: '#steps' };

/** How a step's payload may be written: its option fields, a single value, or nothing at all. */
function forms(node: SchemaNode): string[] {
  // A payload that is itself one value (a duration) is one form, though JSON Schema spells it as two.
  const branches = node['x-value-kind'] === undefined ? (node.anyOf ?? [node]) : [node];
  const lines: string[] = [];
  const object = objectBranch(node);
  const scalars = branches.filter((b) => b.type !== 'null' && b.type !== 'object');
  if (scalars.length > 0)
    lines.push(`Written as a value: ${scalars.map((b) => typeText(b, CONTEXT)).join(' or ')}.`);
  const rows = object ? fieldRows(object, '', CONTEXT) : [];
  if (rows.length === 0 && object) lines.push('Takes no options: write nothing (or `{}`) under its key.');
  else if (branches.some((b) => b.type === 'null'))
    lines.push('Written with nothing (or `{}`) under its key, every option takes its default.');
  if (rows.length > 0) lines.push(fieldTable(rows));
  return lines;
}

function section(kind: ListedKind): string[] {
  const node = schemaNode(kind.payload);
  // A step written with nothing under its key is YAML's null: shown as the user writes it.
  const example = stringify([{ [kind.name]: kind.example }])
    .trimEnd()
    .replace(/: null$/m, ':');
  return [
    `## ${kind.name}`,
    `${node.description ?? ''}${kind.needsJob ? " Acts on the flow's job: a `run` or `runsync` step must come before it." : ''}`,
    `\`\`\`yaml\n${example}\n\`\`\``,
    ...forms(node),
  ];
}

/** docs/reference/steps.md: every step kind and its options, from each kind's schema in src/steps/. */
export function stepsPage(): string {
  const kinds = STEP_KINDS.map((k) => stepKind(k.name)).filter((k): k is ListedKind => k !== undefined);
  return page([
    generatedNotice(['src/steps/*.ts']),
    '# Step reference',
    "A flow's `steps` run in order, each an object with exactly one key naming its kind. Every kind, its options with type, default and unit, and a minimal example (each example is parsed by the test suite).",
    '## Steps',
    kinds.map((k) => `[\`${k.name}\`](#${k.name.toLowerCase()})`).join(' · '),
    '## Value types',
    valueKindsTable(),
    ...kinds.flatMap(section),
  ]);
}
