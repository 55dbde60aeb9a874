import { SparseHistogram } from '../metrics/sparse-histogram.js';
import { FINAL_STATES } from '../metrics/metrics-data.js';
import { escapeXml as esc, formatMs, formatRate } from './format.js';
import type { Summary } from './summary.js';

/** Seconds the "now" figures are over: long enough to smooth a second's noise, short enough to follow a ramp. */
export const NOW_WINDOW_S = 10;

/** Bins of the series the "now" window reads, and the time they cover, in seconds. */
interface Window {
  from: number;
  to: number;
  seconds: number;
}

/**
 * The last `NOW_WINDOW_S` seconds of the series, to the instant the summary was taken: a running
 * run's last second is still filling, so rates are over the time covered (the run's start to its
 * "now"), not over whole bins, and the first update shows rates at once. A finished run's window
 * ends with its last second, so the report and the page that watched it show the same.
 */
function windowOf(s: Summary, running: boolean): Window | undefined {
  const series = s.series;
  const to = series.length - 1;
  if (to < 0) return undefined;
  const from = Math.max(0, to - NOW_WINDOW_S + 1);
  const first = series.startSec + from;
  const begin = Math.min(Math.max(first, s.run.startMs / 1000), first + 1);
  const lastEnd = series.startSec + to + 1;
  const end = running
    ? Math.min(lastEnd, Math.max((s.run.startMs + s.run.durationMs) / 1000, lastEnd - 1))
    : lastEnd;
  const seconds = end - begin;
  // Less than a fifth of a second says nothing yet about a rate.
  return seconds < 0.2 ? undefined : { from, to, seconds };
}

function sum(values: readonly (number | null | undefined)[] | undefined, w: Window): number {
  let total = 0;
  for (let i = w.from; i <= w.to; i++) total += values?.[i] ?? 0;
  return total;
}

interface OpRow {
  op: string;
  rate: number;
  p50: number | undefined;
  p90: number | undefined;
  p99: number | undefined;
  runP99: number | undefined;
}

/** Each operation's latency over the window: its seconds' histograms merged (a few per second, not per request). */
function opRows(s: Summary, w: Window): OpRow[] {
  return Object.entries(s.series.ops).map(([op, o]) => {
    const h = new SparseHistogram();
    for (let i = w.from; i <= w.to; i++) {
      const enc = o.latency[i];
      if (enc) h.merge(SparseHistogram.decode(enc));
    }
    const at = (p: number): number | undefined => (h.count > 0 ? h.percentileMs(p) : undefined);
    const run = s.operations[op];
    return {
      op,
      rate: sum(o.requests, w) / w.seconds,
      p50: at(50),
      p90: at(90),
      p99: at(99),
      runP99: run && run.requests > 0 ? run.latency.p99 : undefined,
    };
  });
}

function ms(v: number | undefined): string {
  return v === undefined ? '—' : esc(formatMs(v));
}

function figure(label: string, value: string, id: string): string {
  return `<div class="figure"><span class="meta">${esc(label)}</span><strong data-figure="${id}">${value}</strong></div>`;
}

/** Workers by state and queue depth: the last `/health` answer, as the target said it. */
function healthFigures(s: Summary): string[] {
  const samples = s.scaling?.samples;
  const i = (samples?.atMs.length ?? 0) - 1;
  if (!samples || i < 0) return [figure('workers (last /health)', '—', 'workers')];
  const init = samples.initializing[i];
  const throttled = samples.throttled[i];
  const workers = [
    `${String(samples.running[i])} running`,
    `${String(samples.idle[i])} idle`,
    ...(init === null || init === undefined ? [] : [`${String(init)} initializing`]),
    ...(throttled === null || throttled === undefined ? [] : [`${String(throttled)} throttled`]),
  ].join(' · ');
  return [
    figure('workers (last /health)', esc(workers), 'workers'),
    figure(
      'endpoint queue (last /health)',
      esc(`${String(samples.inQueue[i])} in queue · ${String(samples.inProgress[i])} in progress`),
      'queue',
    ),
  ];
}

function jobFigures(s: Summary): string {
  const j = s.jobs;
  const finals = FINAL_STATES.map((st) => `${st} ${String(j.byState[st])}`).join(' · ');
  return figure(
    'jobs',
    esc(`${String(j.submitted)} submitted · ${finals} · ${String(j.unfinished)} not final`),
    'jobs',
  );
}

/**
 * The run as it stands: arrivals, requests, errors and 429s per second and each operation's
 * latency over the last seconds, jobs by state, the endpoint's workers and queue. The live
 * dashboard shows it above the report while the run goes on; report.html shows it as the run
 * ended, so the page watched and the file kept are one view. All of it comes from the summary.
 */
export function runStateHtml(s: Summary, running: boolean): string {
  const w = windowOf(s, running);
  if (!w) return `<section id="now"><h2>Now</h2><p class="meta">Nothing measured yet.</p></section>`;
  const series = s.series;
  const arrivals = series.due ? sum(series.due, w) : sum(series.submitted, w);
  const figures = [
    figure(`arrivals/s (last ${span(w)})`, esc(formatRate(arrivals / w.seconds)), 'arrivals'),
    figure(`requests/s (last ${span(w)})`, esc(formatRate(sum(series.requests, w) / w.seconds)), 'requests'),
    figure(
      `errors (last ${span(w)} · run)`,
      esc(`${String(sum(series.errors, w))} · ${String(sumAll(series.errors))}`),
      'errors',
    ),
    figure(
      `429s (last ${span(w)} · run)`,
      esc(`${String(sum(series.r429, w))} · ${String(sumAll(series.r429))}`),
      '429',
    ),
    figure('in flight (mean)', esc((sum(series.busyUs, w) / 1e6 / w.seconds).toFixed(1)), 'in-flight'),
    jobFigures(s),
    ...healthFigures(s),
    figure('findings', String(s.violations.reduce((n, v) => n + v.count, 0)), 'findings'),
  ];
  const rows = opRows(s, w)
    .map(
      (r) =>
        `<tr><td><code>${esc(r.op)}</code></td><td>${esc(formatRate(r.rate))}</td><td>${ms(r.p50)}</td><td>${ms(r.p90)}</td><td>${ms(r.p99)}</td><td>${ms(r.runP99)}</td></tr>`,
    )
    .join('');
  const table = rows
    ? `<table class="now-ops"><thead><tr><th>operation</th><th>rate/s</th><th>p50</th><th>p90</th><th>p99</th><th>p99 (run)</th></tr></thead><tbody>${rows}</tbody></table>`
    : '';
  return `<section id="now"><h2>${running ? 'Now' : 'At the end'}</h2><p class="meta">${esc(`Rates and percentiles over the last ${span(w)} of the run (requests by when they ended), latency from the intended start; "run" figures over the whole run.`)}</p><div class="figures">${figures.join('')}</div>${table}</section>`;
}

function sumAll(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function span(w: Window): string {
  return `${w.seconds >= 9.95 ? w.seconds.toFixed(0) : w.seconds.toFixed(1)} s`;
}
