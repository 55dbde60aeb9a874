import type { ChartSpec } from './chart-data.js';
import { escapeXml as esc } from './format.js';
import { SCALING_HEADER, scalingRows } from './scaling-rows.js';
import type { Summary } from './summary.js';

/** report.html's Scaling section: the figures as summary.md shows them, then the scaling chart. */
export function scalingHtml(s: Summary, charts: readonly ChartSpec[]): string {
  const rows = scalingRows(s);
  if (rows.length === 0) return '';
  const head = SCALING_HEADER.map((h) => `<th>${esc(h)}</th>`).join('');
  const body = rows
    .map((r) => `<tr>${r.map((c) => `<td class="text">${esc(c)}</td>`).join('')}</tr>`)
    .join('');
  const chart = charts.some((c) => c.id === 'scaling') ? '<div class="chart" id="chart-scaling"></div>' : '';
  return `<h2>Scaling</h2><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>${chart}`;
}
