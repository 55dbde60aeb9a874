import {
  isAccepted,
  knownOutcomes,
  type KnownDeviations,
  type KnownResults,
  type SkippedCheck,
} from '../core/known-deviation.js';
import type { JobstormRecord, RunRecord } from '../core/record.js';
import { recordTime } from '../core/record.js';
import { RouteWatch } from '../core/route-watch.js';
import { DEFAULT_RUN_LIMITS, mergeCaps, type CapCount, type RunLimits } from '../core/run-limits.js';
import type { Violation } from '../core/violation.js';
import { JobEvents } from '../fold/job-events.js';
import { applyToBook } from './book-records.js';
import { CHECK_CATALOG, checkInfo, type CheckId } from './catalog.js';
import type { Check, CheckContext, Finding, Judgement } from './check.js';
import { defaultChecks } from './checks/registry.js';
import { routeCheck } from './checks/route-check.js';
import { evidenceOf } from './evidence.js';
import { JobBook, type JobState } from './job-book.js';
import { KnownMatcher, skippedIds } from './known-matcher.js';
import type { OpenApiRules } from './openapi-rules.js';
import { curlRepro } from './repro.js';
import { TargetTime } from './target-time.js';
import { DEFAULT_TOLERANCES, type Tolerances } from './tolerances.js';

export interface ViolationGroup {
  id: string;
  severity: Violation['severity'];
  count: number;
  /** Of `count`, the findings an entry of the run's known deviations accepted; absent when none. */
  known?: number;
  /** The earliest few, new findings before known ones when there are more than are kept. */
  examples: Violation[];
}

export interface CheckResult {
  /** Groups in order of first occurrence. */
  violations: ViolationGroup[];
  total: number;
  /** Names of the check families that ran. */
  checks: string[];
  /** Per check id of the catalog: how many observations it judged (0: not exercised). */
  coverage: Record<string, number>;
  /** Operations the target does not serve, as `route.missing` found them. */
  missingRoutes: string[];
  /** Why a check id could not be judged on these records, for the ids that said (see `CheckContext.unjudged`). */
  notes: Record<string, string>;
  /** Check ids not run, each with why; absent when none was skipped. */
  skipped?: Record<string, string>;
  /** The run's known deviations, each with the findings it matched; absent when it had none. */
  known?: KnownResults;
  /** The caps on what the checks keep that dropped detail (RunLimits); absent when none was reached. */
  caps?: CapCount[];
}

export interface CheckerOptions {
  tolerances?: Partial<Tolerances>;
  checks?: Check[];
  /** Examples kept per id; counts are always exact. */
  maxExamples?: number;
  onViolation?: (v: Violation) => void;
  /** Rules from a user's OpenAPI document, for `management.openapi`. */
  openapi?: OpenApiRules;
  /** What the checks keep at most per job and per sample (default RunLimits'; tests make them small). */
  limits?: Partial<RunLimits>;
  /** Checks not to run, beside those the run record names (`jobstorm check --skip-check`). */
  skip?: readonly SkippedCheck[];
  /** Deviations to accept instead of those the run record names (`jobstorm check --known`). */
  known?: KnownDeviations;
}

/** What the checks see as `ctx.job` before the first record: nothing happened to any job. */
const NO_EVENTS = new JobEvents(0);

/** The verdict of rule `id`: its catalog row, which only the checker hands out as one. */
function verdictOf<Id extends CheckId>(id: Id): Judgement<Id> {
  return checkInfo(id) as Judgement<Id>;
}

/**
 * Runs every check over a record stream. The same class serves live runs and `jobstorm check`
 * on a saved file; both feed records in the same order, so the results are identical.
 *
 * What each record did to its job comes from the one job fold (src/fold/): whoever feeds the
 * checker (a run session, `jobstorm check`, a test) folds every record once, for all its
 * consumers, and hands the result with the record; the checker folds nothing itself.
 */
export class Checker {
  readonly tolerances: Tolerances;
  private readonly checks: Check[];
  /** The checks that look at each record. */
  private readonly adders: (Check & Required<Pick<Check, 'add'>>)[];
  private readonly book: JobBook;
  private readonly groups = new Map<string, ViolationGroup>();
  private readonly maxExamples: number;
  /** The checks' context; `job` is set to each record's events before the checks see it. */
  private readonly ctx: { -readonly [K in keyof CheckContext]: CheckContext[K] };
  private total = 0;
  private readonly time: TargetTime;
  private finished = false;
  private readonly routes: RouteWatch;
  private readonly coverage = new Map<CheckId, number>();
  private readonly notes = new Map<CheckId, string>();
  /** Check ids not run, with why: judged as nothing, reported as nothing. */
  private readonly skipped: Map<CheckId, string>;
  private readonly knownList: KnownDeviations | undefined;
  private readonly matcher: KnownMatcher;
  /** Findings each known entry matched, by its index. */
  private readonly entryFindings: Record<string, number> = {};

  constructor(
    private readonly run: RunRecord,
    private readonly options: CheckerOptions = {},
  ) {
    this.tolerances = { ...DEFAULT_TOLERANCES, ...options.tolerances };
    this.routes = new RouteWatch({ adapt: run.strict !== true });
    this.time = new TargetTime(run);
    this.checks = options.checks ?? defaultChecks(options.openapi, options.limits);
    this.skipped = skippedIds([...(run.skipChecks ?? []), ...(options.skip ?? [])]);
    this.knownList = options.known ?? run.known;
    this.matcher = new KnownMatcher(this.knownList?.entries ?? [], run.startedAtMs);
    this.adders = this.checks.filter((c): c is Check & Required<Pick<Check, 'add'>> => c.add !== undefined);
    // A final job is held in full long enough for its webhook and both retries (2 × 10 s) to
    // arrive. Without a webhook a short hold will do: a later poll brings it back with its state
    // (only the evidence timeline before the fold is gone), and a small book stays in cache.
    this.book = new JobBook({
      webhookHoldMs: this.tolerances.webhookWaitMs + 25_000,
      holdMs: 2_000,
      maxJobs: options.limits?.checkJobsHeld ?? DEFAULT_RUN_LIMITS.checkJobsHeld,
      maxAfterlife: options.limits?.checkJobsBrief ?? DEFAULT_RUN_LIMITS.checkJobsBrief,
    });
    this.maxExamples = options.maxExamples ?? 20;
    this.ctx = {
      run,
      tolerances: this.tolerances,
      jobs: this.book,
      job: NO_EVENTS,
      routes: this.routes,
      judge: <Id extends CheckId>(id: Id, violated: boolean): Judgement<Id> | undefined => {
        // A skipped check judges nothing: it counts as not exercised, and finds nothing to emit.
        if (this.skipped.has(id)) return undefined;
        this.coverage.set(id, (this.coverage.get(id) ?? 0) + 1);
        return violated ? verdictOf(id) : undefined;
      },
      settle: verdictOf,
      unjudged: (id, reason) => {
        if (!this.notes.has(id) && !this.skipped.has(id)) this.notes.set(id, reason);
      },
      emit: (verdict, f) => this.emit(verdict, f),
    };
  }

  /** Takes one record with what the job fold made of it (`jobs`: read here and not kept, so the fold may reuse it). */
  add(original: JobstormRecord, jobs: JobEvents): void {
    if (original.type === 'run') return;
    if (original.type === 'clock') {
      this.time.advance(original);
      return;
    }
    const record = this.time.map(original);
    this.ctx.job = jobs;
    routeCheck.add(record, this.ctx);
    for (const check of this.adders) check.add(record, this.ctx);
    applyToBook(this.book, record, jobs);
    this.book.advance(recordTime(record), this.retireJob);
  }

  finish(): CheckResult {
    if (!this.finished) {
      this.finished = true;
      // Checks that judge across jobs look into the book, so they finish before it is emptied.
      for (const check of this.checks) check.finish?.(this.ctx);
      for (const job of this.book.drain()) this.retireJob(job);
    }
    const coverage: Record<string, number> = {};
    for (const c of CHECK_CATALOG) coverage[c.id] = this.coverage.get(c.id) ?? 0;
    const known = this.knownList;
    const caps = mergeCaps(this.book.caps(), ...this.checks.map((c) => c.caps?.()));
    return {
      violations: [...this.groups.values()],
      total: this.total,
      checks: this.checks.map((c) => c.name),
      coverage,
      missingRoutes: this.routes.missingRoutes().map((m) => m.op),
      notes: Object.fromEntries(this.notes),
      ...(this.skipped.size > 0 ? { skipped: Object.fromEntries(this.skipped) } : {}),
      ...(known
        ? {
            known: {
              file: known.file,
              entries: knownOutcomes(known.entries, this.entryFindings, (_, i) => this.matcher.expired(i)),
            },
          }
        : {}),
      ...(caps.length > 0 ? { caps } : {}),
    };
  }

  private readonly retireJob = (job: JobState): void => {
    for (const check of this.checks) check.jobDone?.(job, this.ctx);
  };

  private emit(verdict: Judgement, f: Finding): void {
    const id = verdict.id;
    // `settle` hands out a late rule's verdict without judging it again: a skipped one stops here.
    if (this.skipped.has(id)) return;
    const r = f.record;
    const job = f.jobId ?? r.jobId;
    const severity = f.severity ?? verdict.severity;
    const violation: Violation = {
      id,
      severity,
      at: f.at ?? recordTime(r),
      message: f.message,
      ...(r.type === 'exchange' ? { op: r.op } : {}),
      // No jobId key at all when there is no job (checker-core.test).
      ...(job === undefined ? {} : { jobId: job }),
      // The job's timeline goes on growing; the evidence is what was known when the rule broke.
      evidence: { ...evidenceOf(r), ...(f.timeline ? { timeline: f.timeline.slice() } : {}) },
      ...(r.type === 'exchange' ? { repro: curlRepro(r, this.run) } : {}),
    };
    const known = this.matcher.match(violation);
    if (known) {
      violation.known = known;
      const key = String(known.entry);
      this.entryFindings[key] = (this.entryFindings[key] ?? 0) + 1;
    }
    this.total++;
    this.tally(violation);
    this.options.onViolation?.(violation);
  }

  private tally(violation: Violation): void {
    const { id, severity } = violation;
    let group = this.groups.get(id);
    if (!group) {
      group = { id, severity, count: 0, examples: [] };
      this.groups.set(id, group);
    } else if (severity === 'error') group.severity = 'error';
    group.count++;
    const accepted = isAccepted(violation);
    if (accepted) group.known = (group.known ?? 0) + 1;
    if (group.examples.length < this.maxExamples) {
      group.examples.push(violation);
      return;
    }
    // Full: a new finding takes the place of the latest known one, so the new ones are never hidden.
    if (accepted) return;
    const at = group.examples.findLastIndex(isAccepted);
    if (at >= 0) {
      group.examples.splice(at, 1);
      group.examples.push(violation);
    }
  }
}
