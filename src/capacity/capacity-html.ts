import { exportLines } from '../report/export-lines.js';
import { chartPage } from '../report/html-assets.js';
import { escapeXml as esc } from '../report/format.js';
import { HTML_STYLE } from '../report/html-app-script.js';
import { capacityCharts } from './capacity-charts.js';
import { CAPACITY_PAGE_SCRIPT } from './capacity-page-script.js';
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

/*
 * capacity.html is built like report.html: uPlot (MIT, © Leon Sorokin), a small page script and
 * report.html's style inlined, allowed by hash under a CSP that lets the page load nothing else, so
 * it works offline and from a CI artifact.
 */

function stepsTable(r: CapacityReport): string {
  const head = `<tr>${STEP_HEADER.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const rows = r.steps.map((s) => {
    const cells = stepRow(s).map((c, i) =>
      i === column('result')
        ? `<td class="${s.passed ? 'ok' : 'fail'}">${esc(c)}</td>`
        : `<td>${esc(c)}</td>`,
    );
    return `<tr>${cells.join('')}</tr>`;
  });
  // Nineteen columns are wider than the page: the table scrolls in its own box, the page does not.
  return `<div class="wide"><table><thead>${head}</thead><tbody>${rows.join('')}</tbody></table></div>`;
}

function costParagraph(r: CapacityReport): string {
  const line = costLine(r);
  return line === undefined ? '' : `<p>${esc(line)}</p>`;
}

function chartDiv(id: string): string {
  return `<div class="chart" id="chart-${esc(id)}"></div>`;
}

export function renderCapacityHtml(r: CapacityReport): string {
  const charts = capacityCharts(r);
  const found = r.verdict === 'found' || r.verdict === 'at-least';
  const reasons = reasonLines(r);
  const has = (id: string): boolean => charts.some((c) => c.id === id);
  return chartPage({
    title: `jobstorm capacity ${r.scenario}`,
    script: CAPACITY_PAGE_SCRIPT,
    style: HTML_STYLE,
    data: { charts },
    body: `<h1>jobstorm capacity: ${esc(r.scenario)}</h1>
<p class="meta">target ${esc(r.target)} · ${esc(new Date(r.startedAtMs).toISOString())} · ${esc((r.durationMs / 1000).toFixed(0))} s · run ${esc(r.runId)}</p>
<p class="${found ? 'ok' : 'fail'}">${esc(headline(r))}</p>
${costParagraph(r)}
<p class="meta">${esc(planLine(r))}. SLO: ${r.slo.length ? r.slo.map((e) => `<code>${esc(e)}</code>`).join(', ') : 'none'}.</p>
<h2>Steps</h2>
${stepsTable(r)}
${reasons.length ? `<ul>${reasons.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` : ''}
<p class="meta">${esc(LITTLE_NOTE)}</p>
${exportLines(r.exports)
  .map((l) => `<p class="meta">${esc(l)}</p>`)
  .join('\n')}
<h2>Rates, times and 429s per step</h2>
${has('rates') ? chartDiv('rates') : ''}
<div class="grid">${['e2e', 'timing', 'r429'].filter(has).map(chartDiv).join('\n')}</div>
<h2>Workers over time</h2>
${has('workers') ? chartDiv('workers') : '<p class="meta">No /health samples.</p>'}
<p class="meta">Charts drawn with uPlot (MIT License, © Leon Sorokin), inlined so this file works offline.</p>`,
  });
}
