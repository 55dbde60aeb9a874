import { ttftStackHtml } from './ttft-stack-html.js';
import { runStateHtml } from './run-state-html.js';
import { windowLine } from './threshold-window-line.js';
import { chartPage } from './html-assets.js';
import { FINAL_STATES } from '../metrics/metrics-data.js';
import { chartSpecs, type ChartSpec } from './chart-data.js';
import { escapeXml as esc, formatMs, formatRate, thresholdValueText } from './format.js';
import { TIMING_RESOLUTION_MS } from '../metrics/timing-resolution.js';
import { HTML_APP_SCRIPT, HTML_STYLE } from './html-app-script.js';
import { warmupLines } from './warmup-line.js';
import { capLines } from './cap-lines.js';
import { scalingHtml } from './scaling-html.js';
import { withScalingChart } from './scaling-chart.js';
import type { Reporter } from './reporter.js';
import { exportLines } from './export-lines.js';
import { deviationHtml } from './deviation-lines.js';
import { knownHtml } from './known-html.js';
import { violationCountText } from './known-lines.js';
import { connectionWaitLines, generatorLines, stallLines } from './stall-lines.js';
import { WORKER_HEADER, workerCells } from './workers-section.js';
import {
  atLabel,
  COVERAGE_HEADER,
  countsLine,
  coverageRows,
  jobCountsLine,
  notExercised,
  runLine,
  TOKEN_HEADER,
  tokenLines,
  tokenRows,
  verdictMark,
  verdictWord,
} from './report-view.js';
import type { Summary, ThresholdResult, ViolationSummary } from './summary.js';

/** A cell is trusted HTML (already escaped), optionally with a class. */
type Cell = string | { html: string; className: string };

function table(header: readonly Cell[], rows: readonly (readonly Cell[])[]): string {
  const td = (c: Cell): string =>
    typeof c === 'string' ? `<td>${c}</td>` : `<td class="${c.className}">${c.html}</td>`;
  const th = (c: Cell): string =>
    typeof c === 'string' ? `<th>${esc(c)}</th>` : `<th class="${c.className}">${c.html}</th>`;
  return `<table><thead><tr>${header.map(th).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map(td).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

function chartDivs(charts: readonly ChartSpec[], test: (c: ChartSpec) => boolean, grid = false): string {
  const divs = charts
    .filter(test)
    .map((c) => `<div class="chart" id="chart-${esc(c.id)}"></div>`)
    .join('\n');
  return grid ? `<div class="grid">${divs}</div>` : divs;
}

function windowNote(t: ThresholdResult): string {
  const w = windowLine(t);
  return w === undefined ? '' : `<br><span class="meta">${esc(w)}</span>`;
}

function thresholdsSection(s: Summary): string {
  if (!s.thresholds.length) return '<p class="meta">No thresholds set.</p>';
  return table(
    ['', 'threshold', 'value'],
    s.thresholds.map((t) => [
      t.ok ? '<span class="ok">pass</span>' : '<span class="fail">FAIL</span>',
      `<code>${esc(t.expression)}</code>${windowNote(t)}`,
      esc(thresholdValueText(t)),
    ]),
  );
}

function operationsSection(s: Summary): string {
  const rows = Object.entries(s.operations).map(([op, o]) => [
    `<code>${esc(op)}</code>`,
    String(o.requests),
    formatRate(o.rate),
    ...[o.latency.p50, o.latency.p90, o.latency.p95, o.latency.p99, o.latency.max].map((v) =>
      esc(formatMs(v)),
    ),
    esc(formatMs(o.latencyFromSent.p50)),
    esc(formatMs(o.latencyFromSent.p99)),
    String(o.count4xx),
    String(o.count5xx),
    String(o.countErrors),
    String(o.count429),
    `<span class="meta">${esc(countsLine(o.byStatus))}</span>`,
  ]);
  return `${table(['operation', 'count', 'rate/s', 'p50', 'p90', 'p95', 'p99', 'max', 'sent p50', 'sent p99', '4xx', '5xx', 'errors', '429', 'by status'], rows)}
<p class="meta">Latency from the intended start (free of coordinated omission); "sent" columns from the actual send. Transport errors: ${esc(countsLine(s.errors))}. Dropped arrivals: ${s.dropped.total}.</p>${warmupLines(
    s,
  )
    .map((l) => `\n<p class="meta">${esc(l)}.</p>`)
    .join('')}`;
}

/** Streamed LLM answers: throughput, goodput, the timings, and TTFT through the queue decomposed. */
function tokensSection(s: Summary): string {
  const tokens = tokenRows(s);
  if (!tokens.length) return '';
  const stacks = (s.tokens?.groups ?? []).map(ttftStackHtml).join('');
  return `<h2>Streamed tokens</h2>\n${tokenLines(s)
    .map((l) => `<p>${esc(l)}</p>`)
    .join('')}${table(
    TOKEN_HEADER,
    tokens.map((row) => row.map(esc)),
  )}${stacks === '' ? '' : `<h3>TTFT through the queue</h3>${stacks}`}\n`;
}

function jobsSection(s: Summary): string {
  const r = TIMING_RESOLUTION_MS;
  const rows = [
    ['delayTime', s.jobs.delayTime.percentiles, r.delayTime],
    ['executionTime', s.jobs.executionTime.percentiles, r.executionTime],
    ['first stream chunk', s.jobs.firstChunk.percentiles, r.firstChunk],
    ...FINAL_STATES.map((st) => [`end-to-end ${st}`, s.jobs.e2e[st].percentiles, r.e2e] as const),
  ] as const;
  const empty = rows.some(([, p]) => p.count === 0)
    ? '<p class="meta">—: no samples of that timing.</p>'
    : '';
  return `<p>${esc(jobCountsLine(s))}</p>${table(
    ['timing', 'count', 'p50', 'p90', 'p95', 'p99', 'max'],
    rows.map(([label, p, resolution]) => [
      esc(label),
      String(p.count),
      // No samples: no time at all, not 0µs.
      ...[p.p50, p.p90, p.p95, p.p99, p.max].map((v) =>
        p.count > 0 ? esc(formatMs(v, resolution)) : { html: '—', className: 'meta' },
      ),
    ]),
  )}${empty}`;
}

function exampleHtml(e: ViolationSummary['examples'][number]): string {
  const lines: string[] = [
    `<div><strong>${esc(atLabel(e.at))}</strong>${e.jobId ? ` job <code>${esc(e.jobId)}</code>` : ''}: ${esc(e.message)}</div>`,
  ];
  const ev = e.evidence;
  const evidence: string[] = [];
  if (ev.request) evidence.push(`request: ${ev.request}`);
  if (ev.status !== undefined) evidence.push(`status: ${ev.status}`);
  if (ev.body) evidence.push(`body: ${ev.body}`);
  if (ev.timeline?.length)
    evidence.push(
      `timeline: ${ev.timeline.map((t) => `${atLabel(t.at)} ${t.op}${t.status !== undefined ? ` ${t.status}` : ''}`).join(' → ')}`,
    );
  if (evidence.length) lines.push(`<pre><code>${esc(evidence.join('\n'))}</code></pre>`);
  if (e.repro) lines.push(`<div>repro:</div><pre><code>${esc(e.repro)}</code></pre>`);
  return lines.join('');
}

function coverageSection(s: Summary): string {
  const ids = Object.keys(s.coverage);
  if (ids.length === 0) return '<p class="meta">Checks were off.</p>';
  const idle = notExercised(s).length;
  const described = s.checkDescriptions;
  const rows = coverageRows(s).map(([id = '', n, r]) => [
    `<code>${esc(id)}</code>`,
    ...(described ? [{ html: esc(described[id] ?? ''), className: 'text' }] : []),
    n ?? '',
    `<span class="${r === 'passed' ? 'ok' : /^(not exercised|skipped|known)/.test(r ?? '') ? 'meta' : 'fail'}">${esc(r ?? '')}</span>`,
  ]);
  // Summaries written before they carried descriptions have none: the column is left out then.
  const [first = '', ...rest] = COVERAGE_HEADER;
  const header = described
    ? [first, { html: 'what it catches', className: 'text' }, ...rest]
    : COVERAGE_HEADER;
  return `<p>${String(ids.length - idle)} of ${String(ids.length)} checks exercised; a check that judged nothing is not a pass.</p>${table(header, rows)}`;
}

function violationsSection(s: Summary): string {
  if (!s.violations.length) return '<p class="ok">No violations.</p>';
  return table(
    ['check', 'severity', 'count', 'examples (earliest first), evidence and repro'],
    s.violations.map((v) => [
      `<code>${esc(v.id)}</code>`,
      `<span class="${v.severity === 'error' ? 'fail' : 'meta'}">${v.severity}</span>`,
      esc(violationCountText(v)),
      { html: v.examples.map(exampleHtml).join('<hr>'), className: 'text' },
    ]),
  );
}

/**
 * What limited or cut the run, beside its numbers: target stalls and the seconds jobstorm itself
 * was the bottleneck (latencies there are not the target's), iterations cut at the stop, and how
 * the live exports fared. The same lines as summary.md, so no report hides what another shows.
 */
function runHealthSection(s: Summary): string {
  const warnings = [...stallLines(s), ...generatorLines(s)].map((l) => `<p class="fail">${esc(l)}</p>`);
  const notes = [
    ...(s.run.iterationsCut ? [`Iterations cut at the graceful stop: ${String(s.run.iterationsCut)}.`] : []),
    ...connectionWaitLines(s),
    ...exportLines(s.exports),
    ...capLines(s),
  ].map((l) => `<p class="meta">${esc(l)}</p>`);
  return [...warnings, ...notes].join('\n');
}

/** Your own worker processes (`--worker`): the handler's side, as summary.md shows it. */
function workersSection(s: Summary): string {
  if (!s.workers) return '';
  const taken = s.workers.rows.reduce((n, r) => n + r.taken, 0);
  return `<h2>Workers (your handler)</h2><p>${String(s.workers.processes)} worker processes started; ${String(taken)} jobs taken.</p>${table(
    WORKER_HEADER,
    workerCells(s.workers.rows).map((row) => row.map(esc)),
  )}`;
}

/** A merge made with --force says so where the run is named: its numbers mix different runs. */
function forcedNote(s: Summary): string {
  const forced = s.run.forced ?? [];
  if (!forced.length) return '';
  return `<p class="fail">Merged with --force from inputs that are not shards of one run:</p><ul>${forced.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`;
}

/** report.html's parts: the verdict box, the body under it, and the charts its script draws. */
export interface ReportView {
  verdict: string;
  body: string;
  charts: ChartSpec[];
}

/** While the run goes on there is no verdict yet: what stands so far, said as such. */
function runningBox(s: Summary): string {
  const findings = s.violations.reduce((n, v) => n + v.count, 0);
  const failing = s.thresholds.filter((t) => !t.ok).length;
  const so = `t+${(s.run.durationMs / 1000).toFixed(0)}s — so far ${String(findings)} finding(s), ${String(failing)} of ${String(s.thresholds.length)} threshold(s) failing on what was measured; the verdict comes at the end`;
  return `<div class="verdict verdict-running" role="status"><strong>RUNNING</strong> ${esc(so)}</div>`;
}

/**
 * The report's view of a summary: report.html and the live dashboard both show exactly this.
 * `running`: a summary of a run still going (the dashboard's): no verdict nor coverage yet.
 */
export function reportView(s: Summary, running = false): ReportView {
  const charts = withScalingChart(chartSpecs(s), s);
  const [headline, ...more] = s.verdict.reasons;
  const verdict = running
    ? runningBox(s)
    : `<div class="verdict verdict-${s.verdict.status}" role="status"><strong>${esc(verdictWord(s))}</strong>${esc(verdictMark(s))}${headline ? ` — ${esc(headline)}` : ''}${more.length ? `<ul>${more.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>` : ''}</div>`;
  return { verdict, body: reportBody(s, charts, running), charts };
}

function reportBody(s: Summary, charts: readonly ChartSpec[], running: boolean): string {
  return `<h1>jobstorm report</h1>
<p class="meta">${esc(runLine(s))}</p>
${runStateHtml(s, running)}
${forcedNote(s)}
${deviationHtml(s, esc)}
${s.preflight?.length ? `<h2>Preflight</h2><ul>${s.preflight.map((p) => `<li><span class="${p.ok ? 'ok' : 'fail'}">${p.ok ? '✓' : '✗'}</span> ${esc(p.check)}: ${esc(p.detail)}</li>`).join('')}</ul>` : ''}
${tokensSection(s)}<h2>Thresholds</h2>
${thresholdsSection(s)}
<h2>Operations</h2>
${operationsSection(s)}
${runHealthSection(s)}
${chartDivs(charts, (c) => c.id === 'throughput' || c.id === 'latency')}
<h2>Jobs</h2>
${jobsSection(s)}
${chartDivs(charts, (c) => c.id === 'jobs' || c.id === 'workers' || c.id === 'pct-e2e')}
${chartDivs(charts, (c) => c.id === 'delay' || c.id === 'execution', true)}
${scalingHtml(s, charts)}
<h2>Latency distribution per operation</h2>
${chartDivs(charts, (c) => c.id.startsWith('pct-') && c.id !== 'pct-e2e', true)}
<h2>Violations</h2>
${violationsSection(s)}
${knownHtml(s, esc)}
<h2>Checks</h2>
${running ? '<p class="meta">Which checks judged something is counted when the run ends.</p>' : coverageSection(s)}
${workersSection(s)}
<p class="meta">Charts drawn with uPlot (MIT License, © Leon Sorokin), inlined so this file works offline.</p>`;
}

/** Renders the page; the CSP allows exactly the inline script and style it carries, by hash. */
export function renderHtml(s: Summary): string {
  const view = reportView(s);
  return chartPage({
    title: `jobstorm report ${s.run.id}`,
    script: HTML_APP_SCRIPT,
    style: HTML_STYLE,
    data: { charts: view.charts },
    body: `${view.verdict}
${view.body}`,
  });
}

export const htmlReporter: Reporter = { name: 'html', fileName: 'report.html', render: renderHtml };
