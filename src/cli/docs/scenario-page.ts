import { ScenarioSchema } from '../../scenario/scenario-schema.js';
import { fieldRows, fieldTable } from './field-rows.js';
import { schemaNode, VALUE_KIND_DESCRIPTIONS, type ValueKind } from './json-schema-view.js';
import { cell, generatedNotice, page, table } from './markdown.js';

const KIND_ROWS: readonly (readonly [ValueKind, string])[] = [
  ['duration', 'duration'],
  ['size', 'size'],
  ['rate', 'number (per second)'],
];

/** How durations, sizes and rates are written, in the words of their schemas. */
export function valueKindsTable(): string {
  return table(
    ['type', 'written as'],
    KIND_ROWS.map(([kind, name]) => [name, cell(VALUE_KIND_DESCRIPTIONS[kind])]),
  );
}

/** docs/reference/scenario.md: every field of a scenario file, from the zod schema. */
export function scenarioPage(): string {
  const root = schemaNode(ScenarioSchema);
  return page([
    generatedNotice([
      'src/scenario/scenario-schema.ts',
      'src/scenario/phase-schema.ts',
      'src/scenario/worker-schema.ts',
    ]),
    '# Scenario file reference',
    `${root.description ?? ''} Every field a scenario file (YAML, JSON or a TypeScript module's default export) may hold, with its type, default and unit. A field nested in a section is written with dots (\`target.auth\`), an element of a list with \`[]\` (\`phases[].rate\`). The steps of a flow are on [their own page](steps.md); [Writing a scenario](../scenarios.md) shows them together.`,
    '## Value types',
    valueKindsTable(),
    '## Fields',
    fieldTable(fieldRows(root, '', { stepLink: 'steps.md' })),
  ]);
}
