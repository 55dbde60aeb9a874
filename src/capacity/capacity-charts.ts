import type { CapacityReport, CapacityStep, HealthPoint } from './capacity-report.js';

/*
 * capacity.html's charts as data only (the page script draws them). Per-step charts put the offered
 * rate on x, steps sorted by it (binary refinement runs them out of order), so each line reads as
 * "what happens to this as load rises"; failed steps are marked with a red point.
 */

export interface CapacitySeries {
  label: string;
  values: (number | null)[];
  color: string;
  /** Drawn against a second y axis on the right. */
  right?: boolean;
  dash?: boolean;
  /** Points without a connecting line (the failed-step markers). */
  pointsOnly?: boolean;
}

export interface CapacityChart {
  id: string;
  title: string;
  /** steps: x is the offered rate (jobs/s); time: x is seconds since the search started (run time). */
  kind: 'steps' | 'time';
  /** The x axis's words: a step chart's x is the offered rate, which is arrivals, not jobs. */
  xLabel: string;
  yLabel: string;
  rightLabel?: string;
  x: number[];
  series: CapacitySeries[];
}

/** Every step chart's x: what the search steps (arrivals asked of the flows). */
const STEP_X_LABEL = 'offered rate (arrivals/s)';

const COLORS = {
  offered: '#1f77b4',
  achieved: '#2ca02c',
  failed: '#d62728',
  p99: '#d62728',
  p95: '#ff7f0e',
  p50: '#1f77b4',
  delay: '#9467bd',
  exec: '#8c564b',
  queue: '#ff7f0e',
  idle: '#7f7f7f',
};

function byRate(r: CapacityReport): CapacityStep[] {
  return [...r.steps].sort((a, b) => a.offeredRate - b.offeredRate || a.index - b.index);
}

/** A percentile of a step's timing, or a gap when the step measured no job. */
function timing(
  steps: readonly CapacityStep[],
  pick: (s: CapacityStep) => { count: number; value: number },
): (number | null)[] {
  return steps.map((s) => {
    const p = pick(s);
    return p.count > 0 ? p.value : null;
  });
}

function failedMarks(steps: readonly CapacityStep[], values: readonly (number | null)[]): CapacitySeries {
  return {
    label: 'step failed',
    values: steps.map((s, i) => (s.passed ? null : (values[i] ?? null))),
    color: COLORS.failed,
    pointsOnly: true,
  };
}

function ratesChart(steps: readonly CapacityStep[], x: number[]): CapacityChart {
  const achieved = steps.map((s) => s.achievedRate);
  return {
    id: 'rates',
    title: 'Offered vs achieved rate per step',
    kind: 'steps',
    xLabel: STEP_X_LABEL,
    // Offered counts arrivals, submitted and achieved count jobs: the axis names both it holds.
    yLabel: 'arrivals/s, jobs/s',
    x,
    series: [
      { label: 'offered (arrivals/s)', values: x, color: COLORS.offered, dash: true },
      {
        label: 'submitted (jobs/s)',
        values: steps.map((s) => s.submittedRate),
        color: COLORS.idle,
        dash: true,
      },
      { label: 'achieved (jobs/s)', values: achieved, color: COLORS.achieved },
      failedMarks(steps, achieved),
    ],
  };
}

function e2eChart(steps: readonly CapacityStep[], x: number[]): CapacityChart {
  const e2e95 = timing(steps, (s) => ({ count: s.e2e.count, value: s.e2e.p95 }));
  return {
    id: 'e2e',
    title: 'End-to-end job time per step (p50, p95, p99)',
    kind: 'steps',
    xLabel: STEP_X_LABEL,
    yLabel: 'ms',
    x,
    series: [
      {
        label: 'e2e p50',
        values: timing(steps, (s) => ({ count: s.e2e.count, value: s.e2e.p50 })),
        color: COLORS.p50,
        dash: true,
      },
      { label: 'e2e p95', values: e2e95, color: COLORS.p95 },
      {
        label: 'e2e p99',
        values: timing(steps, (s) => ({ count: s.e2e.count, value: s.e2e.p99 })),
        color: COLORS.p99,
      },
      failedMarks(steps, e2e95),
    ],
  };
}

function timingChart(steps: readonly CapacityStep[], x: number[]): CapacityChart {
  const delay95 = timing(steps, (s) => ({ count: s.delayTime.count, value: s.delayTime.p95 }));
  return {
    id: 'timing',
    title: 'delayTime and executionTime per step (p50, p95; as the endpoint reported them)',
    kind: 'steps',
    xLabel: STEP_X_LABEL,
    yLabel: 'ms',
    x,
    series: [
      {
        label: 'delayTime p50',
        values: timing(steps, (s) => ({ count: s.delayTime.count, value: s.delayTime.p50 })),
        color: COLORS.delay,
        dash: true,
      },
      { label: 'delayTime p95', values: delay95, color: COLORS.delay },
      {
        label: 'executionTime p50',
        values: timing(steps, (s) => ({ count: s.executionTime.count, value: s.executionTime.p50 })),
        color: COLORS.exec,
        dash: true,
      },
      {
        label: 'executionTime p95',
        values: timing(steps, (s) => ({ count: s.executionTime.count, value: s.executionTime.p95 })),
        color: COLORS.exec,
      },
      failedMarks(steps, delay95),
    ],
  };
}

function r429Chart(steps: readonly CapacityStep[], x: number[]): CapacityChart {
  return {
    id: 'r429',
    title: '429 answers per step (% of requests)',
    kind: 'steps',
    xLabel: STEP_X_LABEL,
    yLabel: '% of requests',
    x,
    series: [
      {
        label: '429 %',
        values: steps.map((s) => (s.rate429 === null ? null : Math.round(s.rate429 * 100_000) / 1000)),
        color: COLORS.failed,
      },
    ],
  };
}

/** The charts over steps, in page order. */
const STEP_CHARTS = [ratesChart, e2eChart, timingChart, r429Chart];

function stepCharts(steps: readonly CapacityStep[]): CapacityChart[] {
  const x = steps.map((s) => s.offeredRate);
  return STEP_CHARTS.map((chart) => chart(steps, x));
}

/**
 * The /health points in time order, with a point of nulls between two steps' samples: between
 * steps the search drains the queue and samples nothing, and a line drawn across that gap showed
 * workers and a queue no sample saw.
 */
function workerRows(r: CapacityReport): (HealthPoint | { atMs: number; gap: true })[] {
  const points = [...r.health].sort((a, b) => a.atMs - b.atMs);
  return points.flatMap((p, i) => {
    const prev = points[i - 1];
    return prev && prev.step !== p.step ? [{ atMs: (prev.atMs + p.atMs) / 2, gap: true as const }, p] : [p];
  });
}

function workersChart(r: CapacityReport): CapacityChart | undefined {
  if (!r.health.length) return undefined;
  const rows = workerRows(r);
  const col = (key: 'running' | 'idle' | 'inQueue'): (number | null)[] =>
    rows.map((p) => ('gap' in p ? null : p[key]));
  return {
    id: 'workers',
    title: 'Workers and queue depth over time (from /health; gaps between steps)',
    kind: 'time',
    xLabel: 'run time',
    yLabel: 'workers',
    rightLabel: 'jobs in queue',
    x: rows.map((p) => p.atMs / 1000),
    series: [
      { label: 'workers running', values: col('running'), color: COLORS.achieved },
      { label: 'workers idle', values: col('idle'), color: COLORS.idle },
      { label: 'jobs in queue (right axis)', values: col('inQueue'), color: COLORS.queue, right: true },
    ],
  };
}

/** Every chart of capacity.html, in page order; charts with no data are left out. */
export function capacityCharts(r: CapacityReport): CapacityChart[] {
  const steps = byRate(r);
  const charts = steps.length ? stepCharts(steps) : [];
  const workers = workersChart(r);
  return workers ? [...charts, workers] : charts;
}
