import { textTable } from '../report/format.js';
import type { Comparison } from './compare-data.js';
import {
  CHECK_HEADER,
  DELTA_HEADER,
  checkCells,
  checksLine,
  columnsNote,
  deltaCells,
  gateCells,
  headlineLines,
  notableChecks,
  runLine,
} from './compare-view.js';
import { LARGE_RULE } from './large-change.js';

/**
 * What `jobstorm compare` prints: the same words and numbers as compare.md, laid out as plain
 * columns (no `**`, no `|` tables), as terminal-reporter.ts is to summary.md.
 */
const GATE_MARK = { passed: '✓', failed: '✗', inconclusive: '?' } as const;

/** One line per gate: the gate's own words run long, so no column is padded to the longest. */
function gateLines(cmp: Comparison): string[] {
  if (!cmp.gates.length) return ['gates: none set'];
  return [
    'gates:',
    ...cmp.gates.map((g) => {
      const [status = '', expression = '', baseline = '', current = '', result = ''] = gateCells(g);
      return `  ${GATE_MARK[g.status]} ${status === 'failed' ? 'FAILED' : status}  ${expression}  (${baseline} → ${current}): ${result}`;
    }),
  ];
}

function changeLines(cmp: Comparison): string[] {
  const out: string[] = ['changes:'];
  for (const group of [...new Set(cmp.deltas.map((d) => d.group))]) {
    const rows = cmp.deltas.filter((d) => d.group === group).map(deltaCells);
    out.push(`  ${group}`, ...textTable(DELTA_HEADER, rows).map((l) => `    ${l}`));
  }
  out.push(
    `  ${columnsNote(cmp)}`,
    `  ${LARGE_RULE}`,
  );
  return out;
}

function checkLines(cmp: Comparison): string[] {
  const notable = notableChecks(cmp);
  const table = notable.length ? textTable(CHECK_HEADER, notable.map(checkCells)).map((l) => `  ${l}`) : [];
  return ['checks:', ...table, `  ${checksLine(cmp)}`];
}

export function renderCompareText(cmp: Comparison): string {
  const [headline = '', ...untested] = headlineLines(cmp);
  const [reason = '', ...more] = cmp.verdict.reasons;
  const out: string[] = [
    `compare: ${cmp.verdict.status.toUpperCase()}${reason ? ` — ${reason}` : ''}`,
    ...more.map((r) => `  ${r}`),
    '',
    `baseline ${runLine(cmp.baseline)}`,
    `current  ${runLine(cmp.current)}`,
  ];
  if (cmp.forced.length) out.push(`Compared with --force although: ${cmp.forced.join('; ')}`);
  out.push('', headline, ...untested.map((l) => `  - ${l}`), '');
  out.push(...gateLines(cmp), '', ...changeLines(cmp), '', ...checkLines(cmp));
  return `${out.join('\n')}\n`;
}
