import type { JobActionOp, JobTraceOp } from '../core/job-trace-job.js';
import { PREFLIGHT_FLOW, sentToBeRefused, type ExchangeRecord, type JobstormRecord } from '../core/record.js';
import type { JobTraceEntry } from './job-trace-schema.js';

/*
 * A run's records made into a job trace (docs/replay.md, `jobstorm trace`): one entry a submission,
 * at the time it was sent, with every later call the run made for its job at its offset from the
 * submission. Times are when requests were sent (`sentAt`), not when they were due: a trace is the
 * traffic the target saw. Requests the replay makes again by itself are left out: a runsync's
 * /status-sync, a 429's retries; so are the preflight's, probes', health and webhooks.
 */

const SUBMITS: readonly string[] = ['run', 'runsync', 'openai'] satisfies JobTraceOp[];
const ACTIONS: readonly string[] = ['status', 'stream', 'cancel', 'retry'] satisfies JobActionOp[];

interface Job {
  readonly op: JobTraceOp;
  readonly sentAt: number;
  readonly flow: string;
  readonly inputBytes: number;
  outputTokens?: number;
  readonly actions: { at: number; op: JobActionOp }[];
}

/** What the records held that a job trace cannot say, counted for the user. */
export interface JobTraceLeftOut {
  /** Calls for a job whose submission is not in the records. */
  unknownJob: number;
  /** Purges made before any job of their flow was submitted. */
  purgeBeforeJobs: number;
}

/** Three decimals: the records' own resolution, and far below the 5 ms a replay keeps to. */
const round = (ms: number): number => Math.round(ms * 1000) / 1000;

export class JobTraceBuilder {
  private readonly jobs: Job[] = [];
  private readonly byId = new Map<string, Job>();
  /** Submissions answered 429 and retried by the client: the retry that got a job id is theirs. */
  private readonly throttled = new Map<string, Job[]>();
  private readonly purges: ExchangeRecord[] = [];
  readonly leftOut: JobTraceLeftOut = { unknownJob: 0, purgeBeforeJobs: 0 };
  /** The first submission of each kind, as sent: what a replay scenario starts from. */
  readonly firstSubmits: Partial<Record<JobTraceOp, ExchangeRecord>> = {};

  add(r: JobstormRecord): void {
    if (r.type !== 'exchange' || r.flow === PREFLIGHT_FLOW || sentToBeRefused(r)) return;
    if (SUBMITS.includes(r.op)) this.submitted(r);
    else if (r.op === 'purge-queue' && (r.attempt ?? 1) === 1) this.purges.push(r);
    else if (ACTIONS.includes(r.op) && (r.attempt ?? 1) === 1) this.acted(r);
    if (r.output?.usageTokens !== undefined && r.jobId !== undefined) {
      const job = this.byId.get(r.jobId);
      if (job !== undefined) job.outputTokens = Math.max(job.outputTokens ?? 0, r.output.usageTokens);
    }
  }

  private submitted(r: ExchangeRecord): void {
    const key = `${r.shard ?? ''}|${r.flow ?? ''}|${r.step ?? ''}`;
    if ((r.attempt ?? 1) > 1) {
      // The client's own retry of a throttled submission: its job id is the first attempt's job.
      const first = this.throttled.get(key)?.shift();
      if (first !== undefined && r.jobId !== undefined) this.byId.set(r.jobId, first);
      return;
    }
    const job: Job = {
      op: r.op as JobTraceOp,
      sentAt: r.sentAt,
      flow: `${r.shard ?? ''}|${r.flow ?? ''}`,
      inputBytes: r.reqBytes,
      actions: [],
    };
    if (r.output?.usageTokens !== undefined) job.outputTokens = r.output.usageTokens;
    this.jobs.push(job);
    this.firstSubmits[job.op] ??= r;
    if (r.jobId !== undefined) this.byId.set(r.jobId, job);
    else if (r.status === 429) {
      const waiting = this.throttled.get(key) ?? [];
      waiting.push(job);
      this.throttled.set(key, waiting);
    }
  }

  private acted(r: ExchangeRecord): void {
    const job = r.jobId === undefined ? undefined : this.byId.get(r.jobId);
    if (job === undefined) {
      this.leftOut.unknownJob++;
      return;
    }
    job.actions.push({ at: round(r.sentAt - job.sentAt), op: r.op as JobActionOp });
  }

  /** The trace, in submission order; each job's calls in the order they were sent. */
  entries(): JobTraceEntry[] {
    const jobs = [...this.jobs].sort((a, b) => a.sentAt - b.sentAt);
    this.attachPurges(jobs);
    return jobs.map((j) => {
      const entry: JobTraceEntry = { at: round(j.sentAt), op: j.op, inputBytes: j.inputBytes };
      if (j.outputTokens !== undefined) entry.outputTokens = j.outputTokens;
      if (j.actions.length > 0) entry.actions = [...j.actions].sort((a, b) => a.at - b.at);
      return entry;
    });
  }

  /**
   * A purge names no job: it goes with the last job its flow submitted before it (same flow and
   * shard), which is when the flow made it, so the replay sends it at the same time.
   */
  private attachPurges(jobs: readonly Job[]): void {
    const byFlow = new Map<string, Job[]>();
    for (const j of jobs) {
      const list = byFlow.get(j.flow) ?? [];
      list.push(j);
      byFlow.set(j.flow, list);
    }
    for (const p of this.purges) {
      const job = lastAtOrBefore(byFlow.get(`${p.shard ?? ''}|${p.flow ?? ''}`) ?? [], p.sentAt);
      if (job === undefined) this.leftOut.purgeBeforeJobs++;
      else job.actions.push({ at: round(p.sentAt - job.sentAt), op: 'purge-queue' });
    }
    this.purges.length = 0;
  }
}

/** The last of `jobs` (sorted by sentAt) sent at or before `at`. */
function lastAtOrBefore(jobs: readonly Job[], at: number): Job | undefined {
  let lo = 0;
  let hi = jobs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((jobs[mid]?.sentAt ?? Infinity) <= at) lo = mid + 1;
    else hi = mid;
  }
  return jobs[lo - 1];
}
