import { LatencyHistogram } from '../metrics/histogram.js';
import { FINAL_STATES } from '../metrics/metrics-data.js';
import { OUTCOMES } from '../metrics/outcome.js';
import { binBars, percentileChart, type ChartSpec } from '../report/chart-data.js';
import type { Summary } from '../report/summary.js';

/** compare.html's charts: both runs on each, baseline first, drawn by report.html's page script. */
function requestHistogram(s: Summary, op: string): LatencyHistogram {
  const h = LatencyHistogram.create();
  const o = s.operations[op];
  for (const name of OUTCOMES) {
    const x = o?.outcomes[name];
    if (x) h.merge(LatencyHistogram.decode(x.intended));
  }
  return h;
}

function e2e(s: Summary): LatencyHistogram {
  const h = LatencyHistogram.create();
  for (const st of FINAL_STATES) h.merge(LatencyHistogram.decode(s.jobs.e2e[st].histogram));
  return h;
}

/**
 * Both runs in the same log-spaced bins, so their bars line up, each as shares of its own jobs:
 * two runs of different length compare by distribution, not by which ran longer.
 */
function overlaidBars(
  id: string,
  title: string,
  b: LatencyHistogram,
  c: LatencyHistogram,
): ChartSpec | undefined {
  const present = [b, c].filter((h) => h.count > 0);
  if (!present.length) return undefined;
  const lo = Math.min(...present.map((h) => h.minMs));
  const hi = Math.max(...present.map((h) => h.maxMs));
  const bins = b.binsBetween(lo, hi, 30);
  return binBars(
    id,
    title,
    bins,
    [
      ['baseline', bins],
      ['current', c.binsBetween(lo, hi, 30)],
    ],
    true,
  );
}

export function compareCharts(b: Summary, c: Summary): ChartSpec[] {
  const ops = [...new Set([...Object.keys(b.operations), ...Object.keys(c.operations)])].sort();
  const charts: (ChartSpec | undefined)[] = ops.map((op) =>
    percentileChart(`pct-${op}`, `${op}: latency by percentile (from the intended start)`, [
      ['baseline', requestHistogram(b, op)],
      ['current', requestHistogram(c, op)],
    ]),
  );
  charts.push(
    percentileChart('pct-e2e', 'Jobs: end-to-end time by percentile (every final state)', [
      ['baseline', e2e(b)],
      ['current', e2e(c)],
    ]),
    overlaidBars(
      'execution',
      "executionTime (as reported), share of each run's jobs",
      LatencyHistogram.decode(b.jobs.executionTime.histogram),
      LatencyHistogram.decode(c.jobs.executionTime.histogram),
    ),
    overlaidBars(
      'delay',
      "delayTime (time in queue, as reported), share of each run's jobs",
      LatencyHistogram.decode(b.jobs.delayTime.histogram),
      LatencyHistogram.decode(c.jobs.delayTime.histogram),
    ),
  );
  return charts.filter((x): x is ChartSpec => x !== undefined);
}
