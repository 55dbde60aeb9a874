import { describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/compare/compare-data.js';
import { renderCompareHtml } from '../../src/compare/compare-html.js';
import {
  CHECK_HEADER,
  DELTA_HEADER,
  GATE_HEADER,
  checkCells,
  checksLine,
  deltaCells,
  gateCells,
  headlineLines,
  runLine,
} from '../../src/compare/compare-view.js';
import { escapeXml as esc } from '../../src/report/format.js';
import type { Summary } from '../../src/report/summary.js';
import { BASELINE_FILE, CURRENT_FILE, fixture, fixtureComparison } from './fixtures/compare-fixture.js';

/*
 * compare.html's body (compare-html.ts), piece by piece from the fixture comparison: the same
 * cells as compare.md, each table's first cell as code and its last marked by how it went.
 */
const B = fixture(BASELINE_FILE);
const C = fixture(CURRENT_FILE);
const CMP = fixtureComparison();
// Rendered inside each test, so the mutation run counts each renderer line as covered by the test that reads it.
const page = (): string => renderCompareHtml(CMP, B, C);

function tr(cells: readonly string[], last?: string): string {
  const tds = cells.map((c, j) =>
    j === cells.length - 1 && last !== undefined
      ? `<td class="text ${last}">${esc(c)}</td>`
      : `<td>${j === 0 ? `<code>${esc(c)}</code>` : esc(c)}</td>`,
  );
  return `<tr>${tds.join('')}</tr>`;
}

const head = (h: readonly string[]): string =>
  `<table><thead><tr>${h.map((x) => `<th>${esc(x)}</th>`).join('')}</tr></thead><tbody>`;

describe('compare.html', () => {
  it('names both runs and gives the verdict with its reasons, marked failed', () => {
    const HTML = page();
    expect(HTML).toContain('<h1>jobstorm compare</h1>');
    expect(HTML).toContain(
      `<p class="meta">baseline ${esc(runLine(CMP.baseline))}<br>current ${esc(runLine(CMP.current))}</p>`,
    );
    expect(HTML).toContain(`<p class="fail">failed: ${esc(CMP.verdict.reasons.join('; '))}</p>`);
    expect(HTML).not.toContain('Compared with --force');
    expect(HTML).toContain(`<title>jobstorm compare ${esc(CMP.baseline.id)} → ${esc(CMP.current.id)}</title>`);
  });

  it('the headline, then each change it could not call significant as a failing item', () => {
    const HTML = page();
    const [headline = '', ...rest] = headlineLines(CMP);
    expect(rest.length).toBeGreaterThan(0);
    expect(HTML).toContain(`<p>${esc(headline)}</p><ul>${rest.map((l) => `<li class="fail">${esc(l)}</li>`).join('')}</ul>`);
  });

  it('the gates: the result last, marked by status; the status column moved to the end', () => {
    const HTML = page();
    expect(HTML).toContain(head([...GATE_HEADER.slice(1), 'status']));
    for (const g of CMP.gates) {
      const [status = '', ...rest] = gateCells(g);
      const mark = g.status === 'passed' ? 'ok' : 'fail';
      expect(HTML).toContain(tr([...rest, status], mark));
    }
    expect(CMP.gates.map((g) => g.status)).toEqual(expect.arrayContaining(['passed', 'failed', 'inconclusive']));
  });

  it('one table of changes per group, each row marked: regressions and untested large changes fail, improvements pass', () => {
    const HTML = page();
    const groups = [...new Set(CMP.deltas.map((d) => d.group))];
    for (const group of groups) expect(HTML).toContain(`<h3>${esc(group)}</h3>${head(DELTA_HEADER)}`);
    const mark = (r: (typeof CMP.deltas)[number]): string =>
      r.significant ? (r.direction === 'better' ? 'ok' : 'fail') : r.large && r.untested ? 'fail' : 'meta';
    for (const group of groups) {
      const rows = CMP.deltas.filter((r) => r.group === group).map((r) => tr(deltaCells(r), mark(r)));
      expect(HTML, group).toContain(`<h3>${esc(group)}</h3>${head(DELTA_HEADER)}${rows.join('')}</tbody></table>`);
    }
    expect(CMP.deltas.some((r) => r.significant && r.direction === 'worse')).toBe(true);
    expect(CMP.deltas.some((r) => !r.significant && r.large && r.untested)).toBe(true);
  });

  it('the checks that changed or still fire, then the line on the clean and idle ones', () => {
    const HTML = page();
    const notable = CMP.checks.filter((c) => c.change !== 'clean' && c.change !== 'not exercised');
    expect(notable.length).toBeGreaterThan(0);
    const rows = notable.map((c) => tr(checkCells(c), c.change === 'vanished' ? 'ok' : 'fail')).join('');
    expect(HTML).toContain(`${head(CHECK_HEADER)}${rows}</tbody></table><p class="meta">${esc(checksLine(CMP))}</p>`);
  });

  it('a chart per operation, the end-to-end times, and the execution and delay bars', () => {
    const HTML = page();
    const div = (id: string): string => `<div class="chart" id="chart-${id}"></div>`;
    expect(HTML).toContain(`<div class="grid">${['pct-health', 'pct-run', 'pct-status'].map(div).join('\n')}</div>`);
    expect(HTML).toContain('<h2>Job timings, baseline and current</h2>\n<div class="chart" id="chart-pct-e2e"></div>');
    expect(HTML).toContain(
      '<div class="grid"><div class="chart" id="chart-execution"></div>\n<div class="chart" id="chart-delay"></div></div>',
    );
    expect(HTML).not.toContain('No jobs reached a final state.');
    const data = /<script type="application\/json" id="jobstorm-data">(.*?)<\/script>/s.exec(HTML)?.[1] ?? '{}';
    const charts = (JSON.parse(data) as { charts?: { id: string }[] }).charts?.map((c) => c.id);
    expect(charts).toEqual(['pct-health', 'pct-run', 'pct-status', 'pct-e2e', 'execution', 'delay']);
  });
});

describe('compare.html of other comparisons', () => {
  it('no gates, nothing notable among the checks, forced, a passed verdict', () => {
    const cmp: Comparison = {
      ...CMP,
      gates: [],
      checks: CMP.checks.map((c) => ({ ...c, change: 'clean' as const })),
      forced: ['different scenarios: a', 'b'],
      verdict: { status: 'passed', reasons: ['no gates set'] },
    };
    const html = renderCompareHtml(cmp, B, C);
    expect(html).toContain('<h2>Gates</h2>\n<p class="meta">No gates set.</p>');
    expect(html).toContain('<p class="fail">Compared with --force although: different scenarios: a; b.</p>');
    expect(html).toContain('<p class="ok">passed: no gates set</p>');
    expect(html).toContain(`<h2>Checks</h2>\n<p class="meta">${esc(checksLine(cmp))}</p>`);
    expect(html).not.toContain(head(CHECK_HEADER));
  });

  it('an inconclusive verdict is marked failing; a vanished check passes', () => {
    const vanished = { ...CMP.checks[0], id: 'x.vanished', change: 'vanished' as const, baselineViolations: 2, currentViolations: 0 };
    const cmp: Comparison = {
      ...CMP,
      checks: [vanished as Comparison['checks'][number]],
      verdict: { status: 'inconclusive', reasons: ['r'] },
    };
    const html = renderCompareHtml(cmp, B, C);
    expect(html).toContain('<p class="fail">inconclusive: r</p>');
    expect(html).toContain(tr(checkCells(vanished as Comparison['checks'][number]), 'ok'));
  });

  it('runs without jobs say so, and draw no job charts', () => {
    const noJobs = (s: Summary): Summary => {
      const x = structuredClone(s);
      for (const st of ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const) x.jobs.e2e[st].histogram = '';
      x.jobs.executionTime.histogram = '';
      x.jobs.delayTime.histogram = '';
      return x;
    };
    const html = renderCompareHtml(CMP, noJobs(B), noJobs(C));
    expect(html).toContain('<h2>Job timings, baseline and current</h2>\n<p class="meta">No jobs reached a final state.</p>\n<div class="grid"></div>');
    expect(html).not.toContain('chart-pct-e2e');
  });

  it('an improvement is marked ok', () => {
    const [first] = CMP.deltas;
    if (!first) throw new Error('no rows');
    const better = { ...first, significant: true, direction: 'better' as const };
    const html = renderCompareHtml({ ...CMP, deltas: [better] }, B, C);
    expect(html).toContain(tr(deltaCells(better), 'ok'));
  });
});
