import { FINAL_STATES } from '../../metrics/metrics-data.js';
import type { JobCounts, LiveFigures } from '../../metrics/run-metrics.js';
import { formatMs, formatRate } from '../../report/format.js';
import type { ProgressSnapshot } from '../../runner/run-options.js';
import type { PhaseLabel } from './phase-plan.js';

/** Everything the progress line can show; the renderer decides what fits. */
export interface ProgressFigures {
  phase: PhaseLabel;
  elapsedMs: number;
  /** When the arrivals end (the schedule's length). */
  totalMs: number;
  snapshot: ProgressSnapshot;
  jobs: JobCounts;
  latency: LiveFigures;
  /** Absent when no checks run (a capacity step): a count that could only read 0 is not shown. */
  violations?: number;
  /** Thresholds judged live (windowed or abortOnFail) that have failed so far, as written. */
  failingThresholds?: readonly string[];
}

type FieldName =
  | 'phase'
  | 'time'
  | 'left'
  | 'rate'
  | 'p99'
  | 'errors'
  | '429s'
  | 'dropped'
  | 'violations'
  | 'thresholds'
  | 'requests'
  | 'flows'
  | 'jobs';

/** A field's wordings, longest first; an empty list hides it (a zero not worth the room). */
type Forms = (f: ProgressFigures) => readonly string[];

/** Seconds up to a minute, then 1m05s, then 1h02m: whole units, so the line does not jitter. */
function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${String(s)}s`;
  if (s < 3600) return `${String(Math.floor(s / 60))}m${String(s % 60).padStart(2, '0')}s`;
  return `${String(Math.floor(s / 3600))}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Down to the second as `clock` shows it, so elapsed and left add up to the total shown. */
function whole(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

function finalJobs(j: JobCounts): number {
  return FINAL_STATES.reduce((n, st) => n + j.byState[st], 0);
}

/** The jobs in the tally's own words (the end-of-run summary's), then shorter. */
function jobForms(f: ProgressFigures): readonly string[] {
  const j = f.jobs;
  if (j.submitted === 0) return [];
  const parts = [
    `submitted ${String(j.submitted)}`,
    ...FINAL_STATES.filter((st) => j.byState[st] > 0).map((st) => `${st} ${String(j.byState[st])}`),
    ...(j.lost > 0 ? [`lost ${String(j.lost)}`] : []),
    `unfinished ${String(j.unfinished)}`,
  ];
  const final = finalJobs(j);
  return [
    `jobs: ${parts.join(' · ')}`,
    `jobs ${String(j.unfinished)} running, ${String(final)} final`,
    // "jobs 40/41" read as anything; this says it is the jobs in a final state of those submitted.
    `${String(final)}/${String(j.submitted)} jobs final`,
  ];
}

/** Failing live thresholds: named while there is room, then counted; nothing while all hold. */
function thresholdForms(f: ProgressFigures): readonly string[] {
  const failing = f.failingThresholds ?? [];
  if (failing.length === 0) return [];
  const n = `${String(failing.length)} threshold${failing.length === 1 ? '' : 's'} failing`;
  return [`${n}: ${failing.join(', ')}`, n, `✗ ${String(failing.length)}`];
}

/**
 * Elapsed of total while arrivals last; after them (the drain) the overrun is named as such, so
 * the line never reads "5s/4s".
 */
function timeForms(f: ProgressFigures): readonly string[] {
  const total = clock(f.totalMs);
  if (whole(f.elapsedMs) <= whole(f.totalMs)) return [`${clock(f.elapsedMs)}/${total}`];
  return [`${total}/${total} +${clock(f.elapsedMs - f.totalMs)}`];
}

function count(label: string, n: number, hideZero = false): readonly string[] {
  return hideZero && n === 0 ? [] : [`${label} ${String(n)}`];
}

/** The fields in the order they are shown, left to right; the jobs last, where the eye ends. */
const FIELDS: Readonly<Record<FieldName, Forms>> = {
  phase: (f) => [f.phase.long, f.phase.short],
  time: timeForms,
  left: (f) => (f.elapsedMs < f.totalMs ? [`${clock(whole(f.totalMs) - whole(f.elapsedMs))} left`] : []),
  rate: (f) => [`${formatRate(f.snapshot.rate)} arrivals/s`, `${formatRate(f.snapshot.rate)}/s`],
  p99: (f) => [`p99 ${f.latency.p99Ms === undefined ? '-' : formatMs(f.latency.p99Ms)}`],
  errors: (f) => count('errors', f.latency.failed),
  '429s': (f) => count('429s', f.snapshot.throttled, true),
  dropped: (f) => count('dropped', f.snapshot.dropped, true),
  violations: (f) => (f.violations === undefined ? [] : count('violations', f.violations)),
  thresholds: thresholdForms,
  requests: (f) => count('requests', f.snapshot.requests),
  flows: (f) => count('flows running', f.snapshot.inFlight),
  jobs: jobForms,
};

const ORDER = Object.keys(FIELDS) as FieldName[];

/**
 * What gives way when the line is too wide, in this fixed order: a wording one step shorter, or
 * the field gone. Where the run is (phase, elapsed / total, time left) is what a person glances
 * at a progress line for, so it stays to the end, the elapsed / total always; of the figures, the
 * violations go last, then the errors.
 */
export const NARROWING: readonly (readonly [FieldName, 'shorter' | 'drop'])[] = [
  ['requests', 'drop'],
  ['flows', 'drop'],
  ['jobs', 'shorter'],
  ['rate', 'shorter'],
  ['dropped', 'drop'],
  ['429s', 'drop'],
  ['rate', 'drop'],
  ['jobs', 'shorter'],
  ['phase', 'shorter'],
  ['jobs', 'drop'],
  ['p99', 'drop'],
  ['errors', 'drop'],
  ['thresholds', 'shorter'],
  ['thresholds', 'shorter'],
  ['thresholds', 'drop'],
  ['violations', 'drop'],
  ['left', 'drop'],
  ['phase', 'drop'],
];

const GAP = '  ';

function joined(shown: readonly (string | undefined)[]): string {
  return shown.filter((s): s is string => s !== undefined).join(GAP);
}

/**
 * The live progress line, at most `width` characters: whole fields only, so a number is never cut
 * in half; without a width (a log), every field at its longest. Its job counts come from the run's
 * metrics (the summary's definition: each job in the first final state an accepted answer showed),
 * so the live line and the end-of-run tally never tell different stories.
 */
export function progressLine(f: ProgressFigures, width?: number): string {
  const forms = ORDER.map((name) => FIELDS[name](f));
  const chosen: (number | undefined)[] = forms.map((list) => (list.length > 0 ? 0 : undefined));
  const text = (): string => joined(chosen.map((c, i) => (c === undefined ? undefined : forms[i]?.[c])));
  if (width === undefined) return text();
  for (const [name, how] of NARROWING) {
    if (text().length <= width) break;
    const i = ORDER.indexOf(name);
    const c = chosen[i];
    if (c === undefined) continue;
    const last = (forms[i]?.length ?? 1) - 1;
    chosen[i] = how === 'drop' ? undefined : Math.min(c + 1, last);
  }
  const line = text();
  return line.length <= width ? line : '';
}
