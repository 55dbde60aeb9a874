import { FINAL_STATES } from '../metrics/metrics-data.js';
import { TIMING_RESOLUTION_MS } from '../metrics/timing-resolution.js';
import { formatMs, formatRate } from './format.js';
import type { Percentiles, Summary, TimingSummary, ViolationSummary } from './summary.js';

/**
 * Rows shared by the terminal and Markdown reports, so both always show the same figures; each
 * renderer only lays them out.
 */
export const OPERATION_HEADER = [
  'operation',
  'count',
  'rate/s',
  'p50',
  'p90',
  'p99',
  'max',
  '4xx',
  '5xx',
  'errors',
  '429',
];

export function operationRows(s: Summary): string[][] {
  return Object.entries(s.operations).map(([op, o]) => [
    op,
    String(o.requests),
    formatRate(o.rate),
    formatMs(o.latency.p50),
    formatMs(o.latency.p90),
    formatMs(o.latency.p99),
    formatMs(o.latency.max),
    String(o.count4xx),
    String(o.count5xx),
    String(o.countErrors),
    String(o.count429),
  ]);
}

/**
 * Where the 4xx answers came from when probes asked for some, so a passed run's 4xx column is
 * explained; undefined when no probe was refused.
 */
export function probe4xxLine(s: Summary): string | undefined {
  const ops = Object.values(s.operations);
  const probes = ops.reduce((n, o) => n + (o.probe4xx ?? 0), 0);
  if (probes === 0) return undefined;
  const all = ops.reduce((n, o) => n + o.count4xx, 0);
  const which = probes === all ? `all ${String(all)}` : `${String(probes)} of ${String(all)}`;
  return `4xx: ${which} answered probes that send bad requests on purpose (the checks judge them)`;
}

export const TIMING_HEADER = ['job timing', 'count', 'p50', 'p90', 'p95', 'p99', 'max'];

function timingRow(label: string, p: Percentiles, resolutionMs = 0): string[] {
  return [
    label,
    String(p.count),
    ...[p.p50, p.p90, p.p95, p.p99, p.max].map((v) => formatMs(v, resolutionMs)),
  ];
}

export function timingRows(s: Summary): string[][] {
  const rows: [string, TimingSummary, number][] = [
    ['delayTime', s.jobs.delayTime, TIMING_RESOLUTION_MS.delayTime],
    ['executionTime', s.jobs.executionTime, TIMING_RESOLUTION_MS.executionTime],
    ['first stream chunk', s.jobs.firstChunk, TIMING_RESOLUTION_MS.firstChunk],
  ];
  const out = rows
    .filter(([, t]) => t.percentiles.count > 0)
    .map(([label, t, resolution]) => timingRow(label, t.percentiles, resolution));
  for (const st of FINAL_STATES) {
    const p = s.jobs.e2e[st].percentiles;
    if (p.count > 0) out.push(timingRow(`end-to-end ${st}`, p));
  }
  return out;
}

export const TOKEN_HEADER = ['streamed output', 'count', 'p50', 'p90', 'p95', 'p99', 'max'];

/**
 * Streamed LLM answers, one block per path and count (docs/llm.md): TTFT (for `/stream` jobs, also
 * split into the queue wait and the rest), ITL, TPOT, e2e and each answer's output per second.
 * None when nothing streamed. Rows with no samples (a one-token answer has no TPOT) are left out.
 */
export function tokenRows(s: Summary): string[][] {
  const t = s.tokens;
  if (!t) return [];
  const rows: string[][] = [];
  for (const g of t.groups) {
    const name = `${g.path === 'openai' ? '/openai' : '/run + /stream'} (${g.counted})`;
    const unit = g.counted === 'tokens' ? 'tokens' : 'chunks';
    const candidates: [string, TimingSummary | undefined][] = [
      [`${name} TTFT`, g.ttft],
      ['  queue wait (delayTime)', g.queue],
      ['    of it, cold start', g.queueCold],
      ['    of it, warm', g.queueWarm],
      ['  queue → first token', g.toFirstAfterQueue],
      [`${name} ITL`, g.itl],
      [`${name} TPOT`, g.tpot],
      [`${name} e2e`, g.e2e],
    ];
    for (const [label, timing] of candidates)
      if (timing !== undefined && timing.percentiles.count > 0)
        rows.push(timingRow(label, timing.percentiles));
    const p = g.perSecond.percentiles;
    if (p.count > 0)
      rows.push([
        `${name} ${unit} per second`,
        String(p.count),
        ...[p.p50, p.p90, p.p95, p.p99, p.max].map((v) => `${formatRate(v)}/s`),
      ]);
  }
  return rows;
}

/** The lines above the token table: each group's answers, output and throughput, then goodput and whose formulas. */
export function tokenLines(s: Summary): string[] {
  const t = s.tokens;
  if (!t) return [];
  const lines = t.groups.map((g) => {
    const out = Number.isInteger(g.outputTokens) ? String(g.outputTokens) : formatRate(g.outputTokens);
    const rate = g.throughput === null ? '' : `, ${formatRate(g.throughput)} ${g.counted}/s`;
    const answers = `${String(g.answers)} answer${g.answers === 1 ? '' : 's'}`;
    return `Streamed through ${g.path === 'openai' ? '/openai' : '/run + /stream'}: ${answers}, ${out} ${g.counted}${rate}.`;
  });
  const gp = t.goodput;
  const objectives = objectivesText(t.objectives);
  const share = gp.share === null ? '' : ` (${(gp.share * 100).toFixed(1)}%)`;
  const rate = gp.perSecond === null ? '' : `, ${formatRate(gp.perSecond)}/s`;
  lines.push(
    objectives === ''
      ? 'Goodput: no objectives set (llm.objectives).'
      : `Goodput (${objectives}): ${String(gp.good)} of ${String(gp.judged)} requests${share}${rate}.`,
    `ITL and TPOT by the ${t.definition} definition.`,
  );
  const cold = coldStartLine(s);
  if (cold !== undefined) lines.push(cold);
  return lines;
}

/**
 * The cold start inside the queue wait of jobs read through `/stream`: each job's own, split by the
 * `/health` samples (the rows "of it, cold start" and "warm"), and the run's share of `delayTime`
 * spent while workers were initializing (the scaling figure coldStartShare). The samples come about
 * a second apart, so a job's split is known to within half an interval at each end.
 */
function coldStartLine(s: Summary): string | undefined {
  if (!s.tokens?.groups.some((g) => g.queue !== undefined)) return undefined;
  const f = s.scaling?.figures;
  if (f === undefined || f.coldStartShare === null)
    return 'Cold start within the queue wait: not measured (no /health samples with workers.initializing).';
  const split = s.tokens.groups.some((g) => g.queueCold !== undefined)
    ? ' The queue wait of each job is split by the /health samples (a second apart) into cold start and warm.'
    : '';
  return `Cold start within the queue wait: ${(f.coldStartShare * 100).toFixed(1)}% of delayTime passed while workers were initializing (coldStartShare, run-wide).${split}`;
}

function objectivesText(o: NonNullable<Summary['tokens']>['objectives']): string {
  const parts: string[] = [];
  if (o.ttftMs !== undefined) parts.push(`TTFT ≤ ${formatMs(o.ttftMs)}`);
  if (o.tpotMs !== undefined) parts.push(`TPOT ≤ ${formatMs(o.tpotMs)}`);
  if (o.itlMs !== undefined) parts.push(`ITL ≤ ${formatMs(o.itlMs)}`);
  if (o.e2eMs !== undefined) parts.push(`e2e ≤ ${formatMs(o.e2eMs)}`);
  return parts.join(', ');
}

export function jobCountsLine(s: Summary): string {
  const j = s.jobs;
  const parts = [
    `submitted ${j.submitted}`,
    ...FINAL_STATES.map((st) => `${st} ${j.byState[st]}`),
    `lost ${j.lost}`,
    `unfinished ${j.unfinished}`,
  ];
  if (j.retried) parts.push(`retried ${j.retried}`);
  if (j.untracked) parts.push(`untracked ${j.untracked}`);
  return parts.join(' · ');
}

export function countsLine(counts: Readonly<Record<string, number>>): string {
  const entries = Object.entries(counts);
  return entries.length ? entries.map(([k, v]) => `${k} ${v}`).join(', ') : 'none';
}

export function runLine(s: Summary): string {
  const r = s.run;
  const shard =
    r.shard !== null
      ? ` · shard ${r.shard}`
      : r.shards.length
        ? ` · merged shards ${r.shards.join(', ')}`
        : '';
  return `run ${r.id} · scenario ${r.scenario} · target ${r.target} · ${r.start} · ${formatMs(r.durationMs)}${shard}`;
}

export function failedThresholds(s: Summary): number {
  return s.thresholds.filter((t) => !t.ok).length;
}

export function violationTotal(s: Summary): number {
  return s.violations.reduce((n, v) => n + v.count, 0);
}

/**
 * ms since the run's start, as the examples' `at` is. A finding before time 0 (a preflight
 * request) is said to be so, never `t+-20247µs`.
 */
export function atLabel(ms: number): string {
  return ms < 0 ? `t−${formatMs(-ms)} (before the start)` : `t+${formatMs(ms)}`;
}

/** The verdict's headline, the same words in every format: "PASSED", "INCONCLUSIVE"… */
export function verdictWord(s: Summary): string {
  return s.verdict.status.toUpperCase();
}

/** " (generator-limited)" after the verdict word, outside its emphasis: the status stays greppable. */
export function verdictMark(s: Summary): string {
  return s.verdict.generatorLimited ? ' (generator-limited)' : '';
}

/** Check ids that judged nothing, in catalog order. */
export function notExercised(s: Summary): string[] {
  return Object.entries(s.coverage)
    .filter(([, n]) => n === 0)
    .map(([id]) => id);
}

/** "not exercised", with why when the check said. */
const notExercisedText = (note: string | undefined): string =>
  note === undefined ? 'not exercised' : `not exercised: ${note}`;

export const COVERAGE_HEADER = ['check', 'observations judged', 'result'];

/** What a check that fired came to: failed or warned on its new findings, known on the rest. */
function firedText(v: ViolationSummary): string {
  const known = v.known ?? 0;
  const fresh = v.count - known;
  if (fresh === 0) return `known ×${String(known)}`;
  const word = v.severity === 'error' ? 'failed' : 'warning';
  return `${word} ×${String(fresh)}${known > 0 ? ` (${String(known)} known)` : ''}`;
}

/**
 * One row per check id: how much it judged, and whether it passed, fired (known findings apart),
 * was skipped (with why) or was not exercised.
 */
export function coverageRows(s: Summary): string[][] {
  const fired = new Map(s.violations.map((v) => [v.id, v]));
  return Object.entries(s.coverage).map(([id, n]) => {
    const v = fired.get(id);
    const skipped = s.skipped?.[id];
    const result = v
      ? firedText(v)
      : skipped !== undefined
        ? `skipped: ${skipped}`
        : n === 0
          ? notExercisedText(s.checkNotes?.[id])
          : 'passed';
    return [id, String(n), result];
  });
}
