import { isFinalStatus } from '../core/job-status.js';
import type { ExchangeRecord, JobstormRecord, RunRecord } from '../core/record.js';
import { recordTime } from '../core/record.js';
import { RouteWatch } from '../core/route-watch.js';
import type { Violation } from '../core/violation.js';
import { CHECK_CATALOG, checkInfo } from './catalog.js';
import type { Check, CheckContext, Finding } from './check.js';
import { defaultChecks } from './checks/registry.js';
import { evidenceOf } from './evidence.js';
import { jobIdOf } from './job-id.js';
import { JobBook, type JobState } from './job-book.js';
import type { OpenApiRules } from './openapi-rules.js';
import { curlRepro } from './repro.js';
import { TargetTime } from './target-time.js';
import { DEFAULT_TOLERANCES, type Tolerances } from './tolerances.js';

export interface ViolationGroup {
  id: string;
  severity: Violation['severity'];
  count: number;
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
}

export interface CheckerOptions {
  tolerances?: Partial<Tolerances>;
  checks?: Check[];
  /** Examples kept per id; counts are always exact. */
  maxExamples?: number;
  onViolation?: (v: Violation) => void;
  /** Rules from a user's OpenAPI document, for `management.openapi`. */
  openapi?: OpenApiRules;
}

/**
 * Runs every check over a record stream. The same class serves live runs and `jobstorm check`
 * on a saved file; both feed records in the same order, so the results are identical.
 */
export class Checker {
  readonly tolerances: Tolerances;
  private readonly checks: Check[];
  /** The checks that look at each record. */
  private readonly adders: (Check & Required<Pick<Check, 'add'>>)[];
  private readonly book: JobBook;
  private readonly groups = new Map<string, ViolationGroup>();
  private readonly maxExamples: number;
  private readonly ctx: CheckContext;
  private total = 0;
  private readonly time: TargetTime;
  private finished = false;
  private readonly routes = new RouteWatch();
  private readonly coverage = new Map<string, number>();

  constructor(
    private readonly run: RunRecord,
    private readonly options: CheckerOptions = {},
  ) {
    this.tolerances = { ...DEFAULT_TOLERANCES, ...options.tolerances };
    this.time = new TargetTime(run);
    this.checks = options.checks ?? defaultChecks(options.openapi);
    this.adders = this.checks.filter((c): c is Check & Required<Pick<Check, 'add'>> => c.add !== undefined);
    // A final job is held in full long enough for its webhook and both retries (2 × 10 s) to
    // arrive. Without a webhook a short hold will do: a later poll brings it back with its state
    // (only the evidence timeline before the fold is gone), and a small book stays in cache.
    this.book = new JobBook({
      webhookHoldMs: this.tolerances.webhookWaitMs + 25_000,
      holdMs: 2_000,
      maxJobs: 200_000,
      maxAfterlife: 500_000,
    });
    this.maxExamples = options.maxExamples ?? 20;
    this.ctx = {
      run,
      tolerances: this.tolerances,
      jobs: this.book,
      routes: this.routes,
      emit: (f) => this.emit(f),
      judged: (id) => this.coverage.set(id, (this.coverage.get(id) ?? 0) + 1),
    };
  }

  add(original: JobstormRecord): void {
    if (original.type === 'run') return;
    if (original.type === 'clock') {
      this.time.advance(original);
      return;
    }
    const record = this.time.map(original);
    if (record.type === 'exchange') this.watchRoutes(record);
    for (const check of this.adders) check.add(record, this.ctx);
    this.applyToBook(record);
    this.book.advance(recordTime(record), this.foldJob);
  }

  finish(): CheckResult {
    if (!this.finished) {
      this.finished = true;
      // Checks that judge across jobs look into the book, so they finish before it is emptied.
      for (const check of this.checks) check.finish?.(this.ctx);
      for (const job of this.book.drain()) this.foldJob(job);
    }
    const coverage: Record<string, number> = {};
    for (const c of CHECK_CATALOG) coverage[c.id] = this.coverage.get(c.id) ?? 0;
    return {
      violations: [...this.groups.values()],
      total: this.total,
      checks: this.checks.map((c) => c.name),
      coverage,
      missingRoutes: this.routes.missingRoutes().map((m) => m.op),
    };
  }

  /**
   * `route.missing` and `request.method`: judged before the checks, so they can leave a missing
   * route's answers to them. Every answered request could have shown either.
   */
  private watchRoutes(r: ExchangeRecord): void {
    if (r.status === undefined || r.op === 'StartPod' || r.op === 'CreateEndpoint') return;
    const probe = r.req?.probe;
    if (probe === undefined || probe.startsWith('request.method')) {
      this.ctx.judged('route.missing');
      this.ctx.judged('request.method');
    }
    for (const m of this.routes.add(r)) {
      if (m.kind === 'method') {
        this.emit({
          id: 'request.method',
          record: m.record,
          message: `this target does not take ${m.record.method} for ${m.op}, the contract's method: it ${m.reason}; jobstorm stops sending ${m.op} for the rest of the run`,
        });
      } else {
        this.emit({
          id: 'route.missing',
          record: m.record,
          message: `this target does not serve ${m.op}: it ${m.reason}; jobstorm stops sending ${m.op} for the rest of the run`,
        });
      }
    }
  }

  private readonly foldJob = (job: JobState): void => {
    for (const check of this.checks) check.jobDone?.(job, this.ctx);
  };

  private emit(f: Finding): void {
    const info = checkInfo(f.id);
    const r = f.record;
    const job = f.jobId ?? r.jobId;
    const severity = f.severity ?? info.severity;
    const violation: Violation = {
      id: f.id,
      severity,
      at: f.at ?? recordTime(r),
      message: f.message,
      ...(r.type === 'exchange' ? { op: r.op } : {}),
      ...(job === undefined ? {} : { jobId: job }),
      // The job's timeline goes on growing; the evidence is what was known when the rule broke.
      evidence: { ...evidenceOf(r), ...(f.timeline ? { timeline: f.timeline.slice() } : {}) },
      ...(r.type === 'exchange' ? { repro: curlRepro(r, this.run) } : {}),
    };
    this.total++;
    let group = this.groups.get(f.id);
    if (!group) {
      group = { id: f.id, severity, count: 0, examples: [] };
      this.groups.set(f.id, group);
    } else if (severity === 'error') group.severity = 'error';
    group.count++;
    if (group.examples.length < this.maxExamples) group.examples.push(violation);
    this.options.onViolation?.(violation);
  }

  private applyToBook(r: JobstormRecord): void {
    if (r.type === 'webhook') {
      if (r.jobId === undefined) return;
      const job = this.book.touch(r.jobId);
      this.book.deliver(job, {
        at: r.at,
        answered: r.answered,
        status: (r.body as { status?: unknown } | undefined)?.status,
        record: r,
      });
      return;
    }
    if (r.type !== 'exchange' || r.status === undefined) return;
    // Their answers name no job of ours (an OpenAI completion id, a list of requests).
    if (r.op === 'openai' || r.op === 'requests') return;
    if (r.op === 'purge-queue') {
      if (r.status === 200) this.markPurge(r);
      return;
    }
    const id = jobIdOf(r);
    if (id === undefined) return;
    const job = this.book.touch(id);
    const body = r.body as { status?: unknown } | undefined;
    if (r.op === 'status' && r.req?.statusTtl !== undefined && r.status === 200)
      job.ttlDeadline = r.sentAt + r.req.statusTtl;
    if (r.status !== 200) return;
    // Seen again: a 404 before this was not the job being lost.
    if (r.op !== 'run' && r.op !== 'runsync') job.lostCandidate = undefined;
    switch (r.op) {
      case 'run':
      case 'runsync':
        if (job.submittedAt === undefined) {
          job.via = r.op;
          job.submittedAt = r.sentAt;
          job.acceptedAt = r.endAt;
          job.ttl = r.req?.ttl;
          job.executionTimeout = r.req?.executionTimeout;
          job.webhook = r.req?.webhook !== undefined;
        }
        break;
      case 'cancel':
        this.book.action(job, r, 'cancel');
        if (body?.status === 'CANCELLED') job.cancelAnsweredCancelled = true;
        break;
      case 'retry':
        this.book.action(job, r, 'retry');
        break;
      default:
        break;
    }
    const status = r.op === 'stream' && Array.isArray(r.body) ? undefined : body?.status;
    this.book.observe(job, r, status);
    if (isFinalStatus(job.last) && job.finalAt !== undefined) this.book.holdUntilFinal(job, r.endAt);
  }

  /** A purge may have cancelled any job not yet final when it was sent. */
  private markPurge(r: ExchangeRecord): void {
    for (const job of this.book.drainView()) {
      if (!isFinalStatus(job.last)) this.book.action(job, r, 'purge');
    }
  }
}
