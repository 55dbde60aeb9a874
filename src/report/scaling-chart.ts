import { samplesFromColumns } from '../metrics/worker-sample.js';
import type { ChartSpec } from './chart-data.js';
import { formatMs } from './format.js';
import type { Summary } from './summary.js';

/** Colours of the scaling chart's lines: submissions, queue, then workers by state. */
const COLORS = {
  submitted: '#1f77b4',
  queue: '#ff7f0e',
  idle: '#7f7f7f',
  running: '#2ca02c',
  initializing: '#9467bd',
  throttled: '#d62728',
};

/** Per series second, the last `/health` sample's value in that second (null where none). */
function perSecond(
  s: Summary,
  pick: (i: number) => number | null,
  atMs: readonly number[],
): (number | null)[] {
  const out = new Array<number | null>(s.series.length).fill(null);
  atMs.forEach((t, i) => {
    const x = Math.floor(t / 1000) - s.series.startSec;
    if (x >= 0 && x < out.length) out[x] = pick(i);
  });
  return out;
}

/** report.html's charts with the scaling chart added, when the run has one. */
export function withScalingChart(charts: readonly ChartSpec[], s: Summary): ChartSpec[] {
  const scaling = scalingChart(s);
  return scaling ? [...charts, scaling] : [...charts];
}

/**
 * Jobs submitted, queue depth and workers by state on one time axis, each scale-up episode marked with
 * its lag; undefined when the run took no `/health` sample.
 */
export function scalingChart(s: Summary): ChartSpec | undefined {
  const sc = s.scaling;
  if (!sc || sc.samples.atMs.length === 0) return undefined;
  const samples = samplesFromColumns(sc.samples);
  const at = sc.samples.atMs;
  const col = (get: (i: number) => number | null) => perSecond(s, get, at);
  const state = (key: 'idle' | 'running' | 'initializing' | 'throttled') =>
    col((i) => {
      const v = samples[i]?.[key];
      return v === undefined ? null : v;
    });
  const optional = (key: 'initializing' | 'throttled') =>
    sc.samples[key].some((v) => v !== null)
      ? [{ label: `workers ${key}`, values: state(key), color: COLORS[key] }]
      : [];
  const origin = s.run.startMs / 1000 - s.series.startSec;
  return {
    id: 'scaling',
    title:
      'Scaling: jobs submitted, queue depth and workers by state (marked: scale-up episodes and their lag)',
    kind: 'time',
    yLabel: 'workers, jobs',
    rightLabel: 'jobs submitted/s',
    rightFromZero: true,
    yLog: false,
    x: Array.from({ length: s.series.length }, (_, i) => i),
    startSec: s.series.startSec,
    series: [
      { label: 'jobs in queue', values: col((i) => samples[i]?.inQueue ?? null), color: COLORS.queue },
      { label: 'workers running', values: state('running'), color: COLORS.running },
      { label: 'workers idle', values: state('idle'), color: COLORS.idle },
      ...optional('initializing'),
      ...optional('throttled'),
      // Jobs counted when /run accepted them, not arrivals: 429s, slow answers and flows that submit
      // nothing make the two differ (arrivals of 20/s drew a line at 6/s under the old name).
      {
        label: 'jobs submitted/s (right axis)',
        values: s.series.submitted,
        color: COLORS.submitted,
        right: true,
        dash: true,
      },
    ],
    marks: sc.figures.episodes.map((e) => ({
      from: origin + e.at / 1000,
      to: origin + (e.at + e.durationMs) / 1000,
      label:
        e.end === 'scaled'
          ? `lag ${formatMs(e.durationMs)}`
          : e.end === 'drained'
            ? 'drained, no scale-up'
            : 'open at the end',
    })),
  };
}
