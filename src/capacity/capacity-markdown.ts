import { exportLines } from '../report/export-lines.js';
import { markdownTable } from '../report/format.js';
import type { CapacityReport } from './capacity-report.js';
import {
  LITTLE_NOTE,
  STEP_HEADER,
  column,
  costLine,
  headline,
  planLine,
  reasonLines,
  stepRow,
} from './capacity-view.js';

/** capacity.md: the headline, the plan, every step and why the failing ones failed. */
export function renderCapacityMarkdown(r: CapacityReport): string {
  const mark = r.verdict === 'found' || r.verdict === 'at-least' ? '✅' : '❌';
  const out: string[] = [
    `## jobstorm capacity: ${r.scenario}`,
    '',
    `${mark} **${headline(r)}**`,
    '',
    ...costLines(r),
    `Target ${r.target} · ${new Date(r.startedAtMs).toISOString()} · ${(r.durationMs / 1000).toFixed(0)} s · run ${r.runId}`,
    '',
    planLine(r),
    '',
    `SLO: ${r.slo.length ? r.slo.map((e) => `\`${e}\``).join(', ') : 'none'}`,
    '',
    '### Steps',
    '',
    ...markdownTable(
      STEP_HEADER,
      r.steps.map(stepRow),
      STEP_HEADER.map((_, i) => (i === column('stage') || i === column('result') ? 'l' : 'r')),
    ),
  ];
  const reasons = reasonLines(r);
  if (reasons.length) out.push('', '### Why steps failed', '', ...reasons.map((l) => `- ${l}`));
  out.push('', `_${LITTLE_NOTE}_`);
  if (r.interrupted) out.push('', 'The search was interrupted; the steps above are all that ran.');
  for (const line of exportLines(r.exports)) out.push('', line);
  return `${out.join('\n')}\n`;
}

function costLines(r: CapacityReport): string[] {
  const line = costLine(r);
  return line === undefined ? [] : [line, ''];
}
