import { CHECK_CATALOG } from '../../check/catalog.js';
import { checkCatalogMarkdown } from '../../check/catalog-table.js';
import { tolerancesMarkdown } from '../../check/tolerance-options.js';
import { FAULTS } from '../../emulator/faults.js';
import { code, generatedNotice, page, table } from './markdown.js';

/** docs/reference/checks.md: every check id and every tolerance, from the catalog and the tolerance schema. */
export function checksPage(): string {
  const errors = CHECK_CATALOG.filter((c) => c.severity === 'error').length;
  return page([
    generatedNotice(['src/check/catalog.ts', 'src/check/tolerances.ts']),
    '# Check reference',
    `Every check id jobstorm can report: ${String(CHECK_CATALOG.length)} checks, ${String(errors)} of severity error (a violation fails the run) and ${String(CHECK_CATALOG.length - errors)} warnings. Each is proven by a test that switches on the [emulator fault](faults.md) named in the last column and sees the check fire. What the checks are and how to run them: [The checks](../checks.md).`,
    '## Checks',
    `<!-- check-catalog:start -->\n${checkCatalogMarkdown()}\n<!-- check-catalog:end -->`,
    '## Tolerances',
    'The allowances the checks make for clocks and windows; change one with `--tolerance name=value` on `run` or `check`.',
    `<!-- tolerances:start -->\n${tolerancesMarkdown()}\n<!-- tolerances:end -->`,
  ]);
}

/** docs/reference/faults.md: every emulator fault and the rule it breaks, from the fault registry. */
export function faultsPage(): string {
  const rows = Object.entries(FAULTS).map(([name, rule]) => `| \`${name}\` | ${rule} |`);
  const proving = new Map<string, string[]>();
  for (const c of CHECK_CATALOG) proving.set(c.provenBy, [...(proving.get(c.provenBy) ?? []), c.id]);
  return page([
    generatedNotice(['src/emulator/faults.ts', 'src/check/catalog.ts']),
    '# Emulator fault reference',
    'Each fault makes the emulator break one rule of the contract, so that a check can be proven to catch it: `--fault NAME` on `run` (embedded emulator), or `emulate --fault NAME`; in a scenario, `emulator.faults`. See [the emulator](../emulator.md).',
    '## Faults',
    [
      '<!-- fault-list:start -->',
      '| fault | what it breaks |',
      '| --- | --- |',
      ...rows,
      '<!-- fault-list:end -->',
    ].join('\n'),
    '## Which checks each fault proves',
    table(
      ['fault', 'check ids'],
      Object.keys(FAULTS).map((name) => [
        code(name),
        (proving.get(name) ?? []).map(code).join(', ') || 'none (see its description)',
      ]),
    ),
  ]);
}
