import type { ScalingFigureName, ScalingFigures } from '../metrics/scaling-figures.js';
import { formatMs, formatPercent, markdownTable } from './format.js';
import type { Summary } from './summary.js';

/** The table header every report uses for the scaling figures. */
export const SCALING_HEADER = ['scaling', 'value'];

function round(n: number, digits: number): string {
  return String(Math.round(n * 10 ** digits) / 10 ** digits);
}

/** A price: small ones keep four significant digits (a cost per 1,000 jobs is often cents). */
export function formatMoney(n: number, currency: string | undefined): string {
  const text = n !== 0 && Math.abs(n) < 1 ? String(Number(n.toPrecision(4))) : n.toFixed(2);
  return currency === undefined ? text : `${text} ${currency}`;
}

function notMeasured(f: ScalingFigures, name: ScalingFigureName): string {
  return `not measured: ${f.notMeasured[name] ?? 'no data'}`;
}

/** Nearest rank over the sorted lags, as the lag thresholds read them. */
function rank(sorted: readonly number[], p: number): number {
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] ?? 0;
}

function lagText(f: ScalingFigures): string {
  const lags = f.scaleUpLagMs;
  const others = f.episodes.filter((e) => e.end !== 'scaled');
  const drained = others.filter((e) => e.end === 'drained').length;
  const open = others.length - drained;
  const rest = others.length
    ? `; ${String(drained)} drained without scaling, ${String(open)} open at the end`
    : '';
  if (lags.length === 0) return notMeasured(f, 'scaleUpLag');
  const [p50, p90, max] = [rank(lags, 50), rank(lags, 90), lags.at(-1) ?? 0].map(formatMs);
  return `${String(lags.length)} scale-ups: p50 ${p50 ?? ''}, p90 ${p90 ?? ''}, max ${max ?? ''}${rest}`;
}

function coldText(f: ScalingFigures): string {
  if (f.coldStartShare === null) return notMeasured(f, 'coldStartShare');
  return `${formatPercent(f.coldStartShare)} of delayTime (${formatMs(f.coldStartMs ?? 0)} in all)`;
}

function workersText(f: ScalingFigures): string {
  if (f.peakWorkers === null) return notMeasured(f, 'peakWorkers');
  const mean = f.meanWorkers === null ? notMeasured(f, 'meanWorkers') : round(f.meanWorkers, 2);
  return `peak ${String(f.peakWorkers)}, mean ${mean}`;
}

function costText(f: ScalingFigures): string {
  if (f.cost === null) return notMeasured(f, 'cost');
  const per1k =
    f.costPer1kJobs === null
      ? `per 1,000 completed jobs ${notMeasured(f, 'costPer1kJobs')}`
      : `${formatMoney(f.costPer1kJobs, f.currency)} per 1,000 completed jobs`;
  return `${formatMoney(f.cost, f.currency)} for the run; ${per1k}`;
}

/**
 * The scaling figures as label/value rows (each report escapes and lays them out its way), or
 * none when the run never asked `/health`. A figure not measured says so and why.
 */
export function scalingRows(s: Pick<Summary, 'scaling'>): string[][] {
  const sc = s.scaling;
  if (!sc || sc.asked === 0) return [];
  const f = sc.figures;
  return [
    ['/health samples', `${String(f.samples)} of ${String(sc.asked)} asked`],
    ['scale-up lag', lagText(f)],
    ['cold start seen by jobs', coldText(f)],
    [
      'drain time after the last arrival',
      f.drainMs === null ? notMeasured(f, 'drainTime') : formatMs(f.drainMs),
    ],
    ['workers (idle + running + initializing)', workersText(f)],
    [
      'worker-seconds',
      f.workerSeconds === null ? notMeasured(f, 'workerSeconds') : `${round(f.workerSeconds, 1)} worker-s`,
    ],
    ['cost', costText(f)],
  ];
}

/** The terminal's scaling block: a blank line, a heading and one line per figure; none without `/health`. */
export function scalingTextLines(s: Pick<Summary, 'scaling'>): string[] {
  const rows = scalingRows(s);
  return rows.length ? ['', 'scaling:', ...rows.map(([k, v]) => `  ${k ?? ''}: ${v ?? ''}`)] : [];
}

/** Markdown's `### Scaling` table, followed by a blank line; none without `/health`. */
export function scalingMarkdownLines(s: Pick<Summary, 'scaling'>): string[] {
  const rows = scalingRows(s);
  return rows.length ? ['### Scaling', '', ...markdownTable(SCALING_HEADER, rows, ['l', 'l']), ''] : [];
}
