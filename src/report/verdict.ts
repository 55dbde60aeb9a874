import { ExitCode } from '../core/exit-code.js';
import { starvedOfCpu } from '../core/cpu-starvation.js';
import type { Summary } from './summary.js';
import { parseThresholds } from './threshold.js';
import { missingShardsReason, shardReasons } from './shard-verdict.js';
import { knownHeadline, knownReasons, newCount } from './known-lines.js';

export type { RunEnd, Verdict, VerdictStatus } from './verdict-status.js';
import type { Verdict, VerdictStatus } from './verdict-status.js';

export const VERDICT_EXIT: Record<VerdictStatus, ExitCode> = {
  passed: ExitCode.Ok,
  failed: ExitCode.Failed,
  inconclusive: ExitCode.Inconclusive,
  unreachable: ExitCode.Aborted,
  interrupted: ExitCode.Interrupted,
};

/** Seconds jobstorm itself was the bottleneck in a run (0 when never). */
export function generatorLimitedSeconds(s: Pick<Summary, 'generatorLimited'>): number {
  return (s.generatorLimited ?? []).reduce((n, x) => n + x.durationMs, 0) / 1000;
}

type Judged = Pick<
  Summary,
  | 'run'
  | 'operations'
  | 'violations'
  | 'thresholds'
  | 'coverage'
  | 'checks'
  | 'generatorLimited'
  | 'errors'
  | 'stalls'
  | 'jobs'
  | 'known'
>;

export function judgeVerdict(s: Judged): Verdict {
  const v = judgeStatus(s);
  const limited = s.generatorLimited ?? [];
  if (limited.length === 0) return v;
  const seconds = generatorLimitedSeconds(s);
  const from = Math.max(0, Math.round((limited[0]?.at ?? 0) / 1000));
  // Starved of CPU more than saturated: the advice is more CPU, not more threads.
  const starved = limited.filter(starvedOfCpu).reduce((n, x) => n + x.durationMs, 0) / 1000 > seconds / 2;
  const advice = starved
    ? 'jobstorm did not get the CPU it needed (a CPU quota, other processes or the host took it): give it more CPU, or run at a lower rate; more --workers will not help'
    : 'run again with --workers 2 (or more), or at a lower rate';
  return {
    ...v,
    generatorLimited: true,
    reasons: [
      ...v.reasons,
      `generator-limited: jobstorm itself was the bottleneck for ${seconds.toFixed(0)} s of the run (from t+${String(from)}s); latencies then include its own queueing, not only the target's: ${advice}`,
    ],
  };
}

function judgeStatus(s: Judged): Verdict {
  const failures = failureReasons(s);
  const inconclusive = inconclusiveReasons(s);
  // Known deviations are said whatever the verdict: accepted findings are never hidden.
  const gaps = [...inconclusive, ...knownReasons(s)];
  const end = s.run.end;
  if (end === 'interrupted' || end === 'output-failed' || end === 'shard-failed') {
    const why =
      missingShardsReason(s.run) ??
      (end === 'interrupted'
        ? 'the run was interrupted: results are partial'
        : end === 'output-failed'
          ? 'the run stopped because its output could not be written: results are partial'
          : `a worker thread failed${s.run.failure === undefined ? '' : ` (${s.run.failure})`}, so the others were stopped: results are partial`);
    return { status: 'interrupted', reasons: [why, ...shardReasons(s.run), ...failures, ...gaps] };
  }
  if (end === 'aborted') {
    const a = s.run.aborted;
    const why = a ? `aborted: ${a.threshold} at t+${String(a.at)}s` : 'aborted: a threshold failed';
    return { status: 'failed', reasons: [why, ...shardReasons(s.run), ...failures, ...gaps] };
  }
  if (end === 'unreachable')
    return { status: 'unreachable', reasons: ['no request got an answer from the target', ...failures] };
  const known = knownHeadline(s);
  if (failures.length > 0)
    return { status: 'failed', reasons: [...failures, ...(known === undefined ? [] : [known]), ...gaps] };
  if (inconclusive.length > 0) return { status: 'inconclusive', reasons: gaps };
  const exercised = Object.values(s.coverage).filter((n) => n > 0).length;
  return {
    status: 'passed',
    reasons: [
      `${known ?? 'no violations'}; ${String(exercised)} of ${String(Object.keys(s.coverage).length)} checks exercised; every threshold held`,
      ...gaps,
    ],
  };
}

function failureReasons(s: Judged): string[] {
  const out: string[] = [];
  // Findings a known deviation accepted fail nothing; the rest fail the run as ever.
  const errors = s.violations.filter((v) => v.severity === 'error' && newCount(v) > 0);
  if (errors.length > 0) {
    const total = errors.reduce((n, v) => n + newCount(v), 0);
    const what = s.known ? `new violation${total === 1 ? '' : 's'}` : 'violations';
    out.push(`${String(total)} ${what}: ${errors.map((v) => `${v.id} ×${String(newCount(v))}`).join(', ')}`);
  }
  const broken = s.thresholds.filter((t) => !t.ok && t.value !== null);
  if (broken.length > 0)
    out.push(
      `threshold${broken.length === 1 ? '' : 's'} failed: ${broken.map((t) => t.expression).join('; ')}`,
    );
  const unanswered = unansweredReason(s);
  if (unanswered !== undefined) out.push(unanswered);
  return out;
}

/**
 * Above this share of requests without a usable answer, the target failed the run. A target that
 * dies or stops answering mid-run is the finding a load test exists for, yet refused connections
 * are fast, carry no status and break no contract rule, so without this the run would pass.
 * 1 % is the bound k6's and Artillery's users conventionally set on failed requests.
 */
const UNANSWERED_BOUND = 0.01;

/**
 * Requests that got no usable answer (refused, reset, timed out, not JSON...), when they are more
 * than UNANSWERED_BOUND of all. `aborted` ones are jobstorm's own: cut by an interrupt or by the
 * end of the graceful stop. A scenario that bounds `errors` itself (`rate(errors) < 5%`) has said
 * what it tolerates: its threshold decides instead.
 */
export function unansweredReason(
  s: Pick<Summary, 'operations' | 'thresholds' | 'errors' | 'stalls'>,
): string | undefined {
  if (s.thresholds.some((t) => boundsErrors(t.expression))) return undefined;
  const requests = Object.values(s.operations).reduce((n, o) => n + o.requests, 0);
  const kinds = Object.entries(s.errors)
    .filter(([kind, n]) => kind !== 'aborted' && n > 0)
    .sort((a, b) => b[1] - a[1]);
  const failed = kinds.reduce((n, [, c]) => n + c, 0);
  if (requests === 0 || failed <= requests * UNANSWERED_BOUND) return undefined;
  const share = `${((100 * failed) / requests).toFixed(1)}%`;
  const stall = s.stalls?.[0];
  const since = stall
    ? `; no answer at all for ${(stall.durationMs / 1000).toFixed(1)} s from t+${String(Math.round(stall.at / 1000))}s`
    : '';
  return `the target left ${String(failed)} of ${String(requests)} requests (${share}) without a usable answer (${kinds.map(([k, n]) => `${k} ${String(n)}`).join(', ')})${since}; more than the default 1% (a threshold on errors, e.g. "rate(errors) < 5%", sets your own bound)`;
}

/** The expression bounds the `errors` metric (a stored summary's expressions parsed before). */
function boundsErrors(expression: string): boolean {
  try {
    return parseThresholds([expression]).some((t) => t.metric === 'errors');
  } catch {
    return false;
  }
}

const SUBMITS = ['run', 'runsync'];

function inconclusiveReasons(s: Judged): string[] {
  const out: string[] = [];
  const ops = Object.entries(s.operations);
  const answered = ops.reduce((n, [, o]) => n + o.requests - o.countErrors, 0);
  const submits = ops.filter(([op]) => SUBMITS.includes(op));
  const submitted = submits.reduce((n, [, o]) => n + o.requests, 0);
  const accepted = submits.reduce(
    (n, [, o]) =>
      n + Object.entries(o.byStatus).reduce((a, [code, c]) => a + (code.startsWith('2') ? c : 0), 0),
    0,
  );
  if (submitted > 0 && accepted === 0)
    out.push(
      `no job was accepted: ${String(submitted)} submits, none answered 2xx${statusHint(submits.map(([, o]) => o.byStatus))}`,
    );
  const fourxx = ops.reduce((n, [, o]) => n + o.count4xx + o.count429, 0);
  if (answered > 0 && fourxx === answered)
    out.push(`every answer was a 4xx${statusHint(ops.map(([, o]) => o.byStatus))}`);
  if (answered === 0 && ops.length === 0) out.push('no request was sent');
  const unfinished = unfinishedReason(s);
  if (unfinished !== undefined) out.push(unfinished);
  const empty = s.thresholds.filter((t) => t.value === null && t.notEvaluated === undefined);
  if (empty.length > 0)
    out.push(
      `no samples for threshold${empty.length === 1 ? '' : 's'} ${empty.map((t) => `"${t.expression}"`).join(', ')}: not a pass`,
    );
  for (const t of s.thresholds)
    if (t.value === null && t.notEvaluated !== undefined)
      out.push(`threshold "${t.expression}" not evaluated: ${t.notEvaluated}; not a pass`);
  const ids = Object.keys(s.coverage);
  if (s.checks.length > 0 && ids.length > 0 && ids.every((id) => (s.coverage[id] ?? 0) === 0))
    out.push('no check judged anything');
  return out;
}

/** Operations whose answers show a job's state: following a job is what lets it be seen final. */
const FOLLOWING = ['status', 'status-sync', 'stream', 'runsync'];

/**
 * Jobs were accepted and followed, yet not one was seen final (none lost either): a target that
 * takes jobs and never runs them (no workers, a stuck queue) answers every poll well-formed and
 * fast, so nothing else would stop the run passing, while every rule about how jobs end went
 * unjudged. A run that only submits (fire and forget) follows nothing and is not held to this.
 */
function unfinishedReason(s: Judged): string | undefined {
  const jobs = s.jobs;
  const finished = Object.values(jobs.byState).reduce((n, c) => n + c, 0);
  if (jobs.submitted === 0 || finished > 0 || jobs.lost > 0) return undefined;
  const followed = FOLLOWING.some((op) =>
    Object.entries(s.operations[op]?.byStatus ?? {}).some(([code, n]) => code.startsWith('2') && n > 0),
  );
  if (!followed) return undefined;
  return `no job finished: ${String(jobs.submitted)} accepted and followed, none seen COMPLETED, FAILED, CANCELLED or TIMED_OUT by the end, so no rule about how jobs end was judged (does the endpoint have workers? do its jobs outlast the run?)`;
}

/** "(401 ×24)": the codes behind a 4xx-only run say what to fix (key, endpoint id, routes). */
function statusHint(byStatus: Record<string, number>[]): string {
  const all = new Map<string, number>();
  for (const b of byStatus)
    for (const [code, n] of Object.entries(b)) all.set(code, (all.get(code) ?? 0) + n);
  const top = [...all.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3);
  if (top.length === 0) return '';
  const hint =
    top[0]?.[0] === '401'
      ? ': the key was refused'
      : top[0]?.[0] === '404'
        ? ': wrong endpoint id or base URL?'
        : '';
  return ` (${top.map(([code, n]) => `${code} ×${String(n)}`).join(', ')})${hint}`;
}

/** How many of the checks judged at least one observation, e.g. "34 of 60 checks exercised". */
export function coverageLine(coverage: Record<string, number>): string {
  const ids = Object.keys(coverage);
  const exercised = ids.filter((id) => (coverage[id] ?? 0) > 0).length;
  return `${String(exercised)} of ${String(ids.length)} checks exercised`;
}
