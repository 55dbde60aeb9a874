import { markdownTable } from '../report/format.js';
import type { Comparison } from './compare-data.js';
import {
  CHECK_HEADER,
  DELTA_HEADER,
  GATE_HEADER,
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

const STATUS_MARK = {
  passed: '✅ **passed**',
  failed: '❌ **failed**',
  inconclusive: '⚠️ **inconclusive**',
} as const;
const GATE_MARK = { passed: '✅', failed: '❌', inconclusive: '⚠️' } as const;

function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

/** compare.md: what a reviewer reads in a pull request or a job summary. */
export function renderCompareMarkdown(cmp: Comparison): string {
  const out: string[] = [
    '## jobstorm compare',
    '',
    `${STATUS_MARK[cmp.verdict.status]}: ${cmp.verdict.reasons.join('; ')}`,
    '',
  ];
  out.push(`Baseline ${runLine(cmp.baseline)}  `, `Current ${runLine(cmp.current)}`, '');
  if (cmp.forced.length) out.push(`Compared with --force although: ${cmp.forced.join('; ')}.`, '');
  const [headline = '', ...untested] = headlineLines(cmp);
  out.push(headline, '');
  if (untested.length) out.push(...untested.map((line) => `- ${line}`), '');
  out.push('### Gates', '');
  if (cmp.gates.length) {
    out.push(
      ...markdownTable(
        GATE_HEADER,
        cmp.gates.map((g) => {
          const [, expression = '', ...rest] = gateCells(g);
          return [GATE_MARK[g.status], code(expression), ...rest];
        }),
        ['l', 'l', 'r', 'r', 'l'],
      ),
    );
  } else {
    out.push('No gates set.');
  }
  out.push('', '### Changes', '');
  const groups = [...new Set(cmp.deltas.map((d) => d.group))];
  for (const group of groups) {
    const rows = cmp.deltas
      .filter((d) => d.group === group)
      .map((d) => {
        const [metric = '', ...rest] = deltaCells(d);
        const mark = rest.pop() ?? '';
        return [code(metric), ...rest, mark ? `**${mark}**` : ''];
      });
    out.push(
      `**${group}**`,
      '',
      ...markdownTable(DELTA_HEADER, rows, ['l', 'r', 'r', 'r', 'r', 'r', 'l']),
      '',
    );
  }
  out.push(
    `_${columnsNote(cmp)}_`,
    '',
    `_${LARGE_RULE}_`,
    '',
    '### Checks',
    '',
  );
  const notable = notableChecks(cmp);
  if (notable.length)
    out.push(
      ...markdownTable(
        CHECK_HEADER,
        notable.map((c) => {
          const [id = '', ...rest] = checkCells(c);
          return [code(id), ...rest];
        }),
        ['l', 'r', 'r', 'r', 'r', 'l'],
      ),
      '',
    );
  out.push(checksLine(cmp));
  return `${out.join('\n')}\n`;
}
