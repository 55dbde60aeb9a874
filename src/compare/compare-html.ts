import { escapeXml as esc } from '../report/format.js';
import { chartPage } from '../report/html-assets.js';
import { HTML_APP_SCRIPT, HTML_STYLE } from '../report/html-app-script.js';
import type { Summary } from '../report/summary.js';
import { compareCharts } from './compare-charts.js';
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

/*
 * compare.html is built on report.html's shell: uPlot and the page script inlined, allowed by hash
 * under a CSP that lets the page load nothing else, so it works offline and from a CI artifact.
 */

const STATUS_CLASS = { passed: 'ok', failed: 'fail', inconclusive: 'fail' } as const;

function table(
  header: readonly string[],
  rows: readonly string[][],
  classOfLast?: (i: number) => string,
): string {
  const body = rows
    .map(
      (r, i) =>
        `<tr>${r.map((c, j) => (j === r.length - 1 && classOfLast ? `<td class="text ${classOfLast(i)}">${esc(c)}</td>` : `<td>${j === 0 ? `<code>${esc(c)}</code>` : esc(c)}</td>`)).join('')}</tr>`,
    )
    .join('');
  return `<table><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table>`;
}

function chartDiv(id: string): string {
  return `<div class="chart" id="chart-${esc(id)}"></div>`;
}

function gatesSection(cmp: Comparison): string {
  if (!cmp.gates.length) return '<p class="meta">No gates set.</p>';
  const rows = cmp.gates.map((g) => {
    const [status = '', ...rest] = gateCells(g);
    return [...rest, status];
  });
  return table(
    [...GATE_HEADER.slice(1), 'status'],
    rows,
    (i) => STATUS_CLASS[cmp.gates[i]?.status ?? 'failed'],
  );
}

function deltasSection(cmp: Comparison): string {
  return [...new Set(cmp.deltas.map((d) => d.group))]
    .map((group) => {
      const rows = cmp.deltas.filter((d) => d.group === group);
      const mark = (i: number): string => {
        const r = rows[i];
        if (!r?.significant) return r?.large && r.untested ? 'fail' : 'meta';
        return r.direction === 'better' ? 'ok' : 'fail';
      };
      return `<h3>${esc(group)}</h3>${table(DELTA_HEADER, rows.map(deltaCells), mark)}`;
    })
    .join('\n');
}

function checksSection(cmp: Comparison): string {
  const notable = notableChecks(cmp);
  const note = `<p class="meta">${esc(checksLine(cmp))}</p>`;
  if (!notable.length) return note;
  return `${table(CHECK_HEADER, notable.map(checkCells), (i) => (notable[i]?.change === 'vanished' ? 'ok' : 'fail'))}${note}`;
}

function headlineSection(cmp: Comparison): string {
  const [headline = '', ...untested] = headlineLines(cmp);
  const list = untested.length
    ? `<ul>${untested.map((l) => `<li class="fail">${esc(l)}</li>`).join('')}</ul>`
    : '';
  return `<p>${esc(headline)}</p>${list}`;
}

export function renderCompareHtml(cmp: Comparison, baseline: Summary, current: Summary): string {
  const charts = compareCharts(baseline, current);
  const has = (id: string): boolean => charts.some((c) => c.id === id);
  return chartPage({
    title: `jobstorm compare ${cmp.baseline.id} → ${cmp.current.id}`,
    script: HTML_APP_SCRIPT,
    style: HTML_STYLE,
    data: { charts },
    body: `<h1>jobstorm compare</h1>
<p class="meta">baseline ${esc(runLine(cmp.baseline))}<br>current ${esc(runLine(cmp.current))}</p>
<p class="${STATUS_CLASS[cmp.verdict.status]}">${esc(cmp.verdict.status)}: ${esc(cmp.verdict.reasons.join('; '))}</p>
${cmp.forced.length ? `<p class="fail">Compared with --force although: ${esc(cmp.forced.join('; '))}.</p>` : ''}
${headlineSection(cmp)}
<h2>Gates</h2>
${gatesSection(cmp)}
<h2>Latency by percentile, baseline and current</h2>
<div class="grid">${charts
      .filter((c) => c.id.startsWith('pct-') && c.id !== 'pct-e2e')
      .map((c) => chartDiv(c.id))
      .join('\n')}</div>
<h2>Job timings, baseline and current</h2>
${has('pct-e2e') ? chartDiv('pct-e2e') : '<p class="meta">No jobs reached a final state.</p>'}
<div class="grid">${['execution', 'delay'].filter(has).map(chartDiv).join('\n')}</div>
<h2>Changes</h2>
<p class="meta">${esc(columnsNote(cmp))}</p>
<p class="meta">${esc(LARGE_RULE)}</p>
${deltasSection(cmp)}
<h2>Checks</h2>
${checksSection(cmp)}
<p class="meta">Charts drawn with uPlot (MIT License, © Leon Sorokin), inlined so this file works offline.</p>`,
  });
}
