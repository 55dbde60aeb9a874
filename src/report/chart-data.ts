import { LatencyHistogram, type HistogramBin } from '../metrics/histogram.js';
import { FINAL_STATES } from '../metrics/metrics-data.js';
import { OUTCOMES } from '../metrics/outcome.js';
import { TIMING_RESOLUTION_MS, type TimingName } from '../metrics/timing-resolution.js';
import { formatMs } from './format.js';
import type { OperationSummary, Summary } from './summary.js';

/**
 * What the page's script needs to draw one chart: data only, no code. Everything is computed here
 * (percentile curves from the encoded histograms, bins, per-second rates), so the page carries no
 * histogram decoder and stays small.
 */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
  /** Drawn against a second y axis on the right; its label then says "right axis", as the legend has no other way to. */
  right?: boolean;
  /** A dashed line (and a hollow dashed legend marker): p50 beside a solid p99 of the same colour. */
  dash?: boolean;
  /** Line width in px (default 1.5). */
  width?: number;
}

export interface ChartSpec {
  id: string;
  title: string;
  /**
   * time: x is seconds since the run's first second (`startSec`), so ticks fall on whole seconds
   * of the run; percentile: x is 1/(1 − q), log scale; bars: x is a bin index.
   */
  kind: 'time' | 'percentile' | 'bars';
  /** time charts: the epoch second of x = 0, for the wall-clock time shown on hover. */
  startSec?: number;
  yLabel: string;
  rightLabel?: string;
  /** The right axis starts at 0: a count of things in flight, whose size is read from the axis. */
  rightFromZero?: boolean;
  yLog: boolean;
  x: number[];
  xLabels?: string[];
  series: ChartSeries[];
  /** time charts: x ranges [from, to) shaded behind the lines: windows that failed a threshold. */
  bands?: { from: number; to: number; label: string }[];
  /** time charts: x ranges [from, to) marked with their label (scale-up episodes and their lag). */
  marks?: { from: number; to: number; label: string }[];
}

const PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
];

export function color(i: number): string {
  return PALETTE[i % PALETTE.length] ?? '#333';
}

/** Log scales cannot show 0: an empty second is a gap, not a point at minus infinity. */
function positive(values: readonly (number | null)[]): (number | null)[] {
  return values.map((v) => (v === null || v <= 0 ? null : v));
}

function timeAxis(s: Summary): number[] {
  return Array.from({ length: s.series.length }, (_, i) => i);
}

function throughputChart(s: Summary): ChartSpec {
  return {
    id: 'throughput',
    title: 'Throughput, 429s and errors per second',
    kind: 'time',
    yLabel: 'per second',
    rightLabel: 'requests in flight',
    rightFromZero: true,
    yLog: false,
    x: timeAxis(s),
    startSec: s.series.startSec,
    series: [
      { label: 'requests/s', values: s.series.requests, color: color(0) },
      { label: '429/s', values: s.series.r429, color: color(1) },
      { label: 'errors + 5xx/s', values: s.series.errors, color: color(7) },
      { label: 'dropped arrivals/s', values: s.series.dropped, color: color(4) },
      {
        // Requests, from their summed time in flight: not the progress line's "in flight", which
        // counts iterations (a job being polled is one, between its requests too).
        label: 'requests in flight (mean, right axis)',
        values: s.series.busyUs.map((b) => Math.round(b / 1000) / 1000),
        color: color(2),
        right: true,
      },
    ],
  };
}

/**
 * Arrivals per second by when they were due (the schedule's, or a replayed trace's, times) and by
 * when their first request went out: the two curves lie on each other when the run kept to its
 * schedule, and part where jobstorm fell behind (a replay shows it was faithful, or where not).
 */
function arrivalsChart(s: Summary): ChartSpec | undefined {
  const { due, sent } = s.series;
  if (due === undefined || sent === undefined) return undefined;
  return {
    id: 'arrivals',
    title: 'Arrivals per second: due (by the schedule or the trace) and sent',
    kind: 'time',
    yLabel: 'arrivals per second',
    yLog: false,
    x: timeAxis(s),
    startSec: s.series.startSec,
    series: [
      { label: 'due/s', values: due, color: color(0), dash: true, width: 1.5 },
      { label: 'sent/s', values: sent, color: color(2), width: 2.5 },
    ],
  };
}

function latencyTimeChart(s: Summary): ChartSpec {
  const series: ChartSeries[] = [];
  Object.entries(s.series.ops).forEach(([op, o], i) => {
    series.push({ label: `${op} p50`, values: positive(o.p50), color: color(i), dash: true, width: 1.5 });
    series.push({ label: `${op} p99`, values: positive(o.p99), color: color(i), width: 2.5 });
  });
  return {
    id: 'latency',
    title: 'Latency per second (p50, p99; from the intended start)',
    kind: 'time',
    yLabel: 'ms',
    yLog: true,
    x: timeAxis(s),
    startSec: s.series.startSec,
    series,
  };
}

function jobsChart(s: Summary): ChartSpec {
  return {
    id: 'jobs',
    title: 'Jobs submitted and reaching each final state, per second',
    kind: 'time',
    yLabel: 'jobs/s',
    yLog: false,
    x: timeAxis(s),
    startSec: s.series.startSec,
    series: [
      // Totals in the labels are the end-of-run tally (summary jobs), the same numbers as every report.
      { label: `submitted (${String(s.jobs.submitted)})`, values: s.series.submitted, color: color(0) },
      ...FINAL_STATES.map((st, i) => ({
        label: `${st} (${String(s.jobs.byState[st])})`,
        values: s.series.finals[st],
        color: color(i + 2),
      })),
    ],
  };
}

function capacityChart(s: Summary): ChartSpec | undefined {
  if (s.series.workers.every((v) => v === null) && s.series.queue.every((v) => v === null)) return undefined;
  return {
    id: 'workers',
    title: 'Workers running and queue depth (from /health samples)',
    kind: 'time',
    yLabel: 'workers',
    rightLabel: 'jobs in queue',
    yLog: false,
    x: timeAxis(s),
    startSec: s.series.startSec,
    series: [
      { label: 'workers running', values: s.series.workers, color: color(2) },
      { label: 'jobs in queue (right axis)', values: s.series.queue, color: color(3), right: true },
    ],
  };
}

/** Percentile levels halving the distance to 100% five steps at a time, as HdrHistogram plots do. */
function percentileGrid(maxCount: number): number[] {
  const levels: number[] = [];
  for (let k = 0; k <= 120; k++) {
    const tail = Math.pow(0.5, k / 5);
    levels.push(100 * (1 - tail));
    if (tail < 1 / Math.max(maxCount, 1)) break;
  }
  return levels;
}

/** Latency by percentile of each named histogram, on one chart (compare.html overlays two runs). */
export function percentileChart(
  id: string,
  title: string,
  named: readonly [string, LatencyHistogram][],
): ChartSpec | undefined {
  const present = named.filter(([, h]) => h.count > 0);
  if (!present.length) return undefined;
  const levels = percentileGrid(Math.max(...present.map(([, h]) => h.count)));
  const x = levels.map((p) => 1 / (1 - p / 100));
  // 100% (the maximum) sits one step past the finest level, since 1/(1 − 1) is infinite.
  x.push((x[x.length - 1] ?? 1) * 2);
  return {
    id,
    title,
    kind: 'percentile',
    yLabel: 'ms',
    yLog: true,
    x,
    series: present.map(([label, h], i) => ({
      label,
      values: positive([...levels.map((p) => h.percentileMs(p)), h.maxMs]),
      color: color(i),
    })),
  };
}

function operationHistograms(o: OperationSummary): [LatencyHistogram, LatencyHistogram] {
  const intended = LatencyHistogram.create();
  const sent = LatencyHistogram.create();
  for (const name of OUTCOMES) {
    const x = o.outcomes[name];
    if (!x) continue;
    intended.merge(LatencyHistogram.decode(x.intended));
    sent.merge(LatencyHistogram.decode(x.sent));
  }
  return [intended, sent];
}

/** A job timing's histogram as bars, binned and labelled at the timing's resolution. */
function barsChart(id: string, title: string, encoded: string, timing: TimingName): ChartSpec | undefined {
  const resolution = TIMING_RESOLUTION_MS[timing];
  const bins = LatencyHistogram.decode(encoded).bins(30, resolution);
  return bins.length ? binBars(id, title, bins, [['jobs', bins]], false, resolution) : undefined;
}

/**
 * Job counts per latency bin as bars, one series per `[label, bins]`; the bins are the first
 * series' (the others must share them, as `binsBetween` over one range gives). With `shares`, each
 * series is in per cent of its own total: runs of different length overlaid as counts would show
 * the longer run taller everywhere, whatever its distribution.
 */
export function binBars(
  id: string,
  title: string,
  axis: readonly HistogramBin[],
  series: readonly (readonly [string, readonly HistogramBin[]])[],
  shares = false,
  resolutionMs = 0,
): ChartSpec {
  const values = (bins: readonly HistogramBin[]): number[] => {
    const total = bins.reduce((n, b) => n + b.count, 0);
    return bins.map((b) => (shares && total > 0 ? Math.round((b.count / total) * 100_000) / 1000 : b.count));
  };
  return {
    id,
    title,
    kind: 'bars',
    yLabel: shares ? '% of jobs' : 'jobs',
    yLog: false,
    x: axis.map((_, i) => i),
    xLabels: axis.map((b) => formatMs(b.fromMs, resolutionMs)),
    series: series.map(([label, bins], i) => ({ label, values: values(bins), color: color(i) })),
  };
}

/**
 * The seconds covered by windows that failed a windowed threshold, on the time charts' x axis
 * (seconds since the series' first second; the thresholds count from the run's start second).
 */
function failingBands(s: Summary): NonNullable<ChartSpec['bands']> {
  const shift = Math.floor(s.run.startMs / 1000) - s.series.startSec;
  return s.thresholds.flatMap((t) =>
    (t.window?.failing ?? []).map(([from, to]) => ({
      from: from + shift,
      to: to + shift,
      label: t.expression,
    })),
  );
}

/** A time chart with the failing windows shaded, its title saying so; unchanged when none failed. */
function withBands(c: ChartSpec | undefined, bands: NonNullable<ChartSpec['bands']>): ChartSpec | undefined {
  if (!c || bands.length === 0) return c;
  return { ...c, title: `${c.title} (shaded: windows failing a threshold)`, bands };
}

/** Every chart of report.html, in page order; charts with no data are left out. */
export function chartSpecs(s: Summary): ChartSpec[] {
  const bands = failingBands(s);
  const charts: (ChartSpec | undefined)[] = [
    throughputChart(s),
    arrivalsChart(s),
    latencyTimeChart(s),
    jobsChart(s),
    capacityChart(s),
  ].map((c) => withBands(c, bands));
  for (const [op, o] of Object.entries(s.operations)) {
    const [intended, sent] = operationHistograms(o);
    charts.push(
      percentileChart(`pct-${op}`, `${op}: latency by percentile`, [
        ['from intended start', intended],
        ['from send', sent],
      ]),
    );
  }
  charts.push(
    percentileChart(
      'pct-e2e',
      'Jobs: end-to-end time by final state, by percentile',
      FINAL_STATES.map(
        (st) => [st, LatencyHistogram.decode(s.jobs.e2e[st].histogram)] as [string, LatencyHistogram],
      ),
    ),
    barsChart('delay', 'delayTime (time in queue, as reported)', s.jobs.delayTime.histogram, 'delayTime'),
    barsChart('execution', 'executionTime (as reported)', s.jobs.executionTime.histogram, 'executionTime'),
  );
  return charts.filter((c): c is ChartSpec => c !== undefined);
}
