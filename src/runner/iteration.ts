import type { SubmissionBody } from '../../contracts/queue/schemas.js';
import type { CallContext, JobResult } from '../client/client-options.js';
import { sizedSubmission } from '../client/sized-submission.js';
import { isFinalStatus, type JobStatus } from '../core/job-status.js';
import { RECORD_VERSION, type RequestFacts } from '../core/record.js';
import type { DataRow, PollTarget, Step, Submission } from '../scenario/scenario.js';
import type { CompiledFlow } from './compiled-flow.js';
import { runBlast } from './blast-step.js';
import { runProbe } from './probes.js';
import type { RunContext } from './run-context.js';

const RANK: Record<JobStatus, number> = { IN_QUEUE: 0, IN_PROGRESS: 1, COMPLETED: 2, FAILED: 2, CANCELLED: 2, TIMED_OUT: 2 };

/** Has a job in `status` reached `target`? A poll may see a later state than the one it waits for. */
export function reached(status: JobStatus | undefined, target: PollTarget): boolean {
  if (status === undefined) return false;
  if (target === 'final') return isFinalStatus(status);
  return status === target || RANK[status] > RANK[target] || isFinalStatus(status);
}

/** The state of one pass through a flow. */
class Iteration {
  jobId: string | undefined;
  status: JobStatus | undefined;
  submittedAt: number | undefined;
  /** When the next request was meant to start: the arrival, then each step's own plan. */
  intendedAt: number;
  private stepIndex = 0;

  constructor(
    private readonly flow: CompiledFlow,
    private readonly ctx: RunContext,
    intendedAt: number,
    private readonly n: number,
    private readonly row: DataRow | undefined,
  ) {
    this.intendedAt = intendedAt;
  }

  async steps(steps: readonly Step[]): Promise<boolean> {
    for (const step of steps) {
      if (this.ctx.stop.aborted && this.stepIndex > 0) return false;
      this.stepIndex++;
      if (!(await this.step(step))) return false;
    }
    return true;
  }

  /** The context of one request; `forJob` is false for submits and endpoint-wide calls, which concern no existing job. */
  private call(kind: string, req?: RequestFacts, forJob = true): CallContext {
    const c: CallContext = { intendedAt: this.intendedAt, flow: this.flow.name, step: `${String(this.stepIndex)}:${kind}`, signal: this.ctx.abort };
    if (forJob && this.jobId !== undefined) c.jobId = this.jobId;
    if (req) c.req = req;
    return c;
  }

  private see(r: JobResult): void {
    if (r.jobStatus === undefined) return;
    const counts = this.ctx.counters.jobs;
    if (this.status !== undefined) counts[this.status] = (counts[this.status] ?? 1) - 1;
    counts[r.jobStatus] = (counts[r.jobStatus] ?? 0) + 1;
    this.status = r.jobStatus;
  }

  /** Runs one step; false ends the iteration (a failed submit leaves nothing to poll). */
  private async step(step: Step): Promise<boolean> {
    const { client, clock } = this.ctx;
    switch (step.kind) {
      case 'run':
      case 'runsync': {
        const { body, facts } = this.submission(step);
        this.submittedAt = clock.now();
        const r = step.kind === 'run'
          ? await client.run(body, this.call('run', facts, false))
          : await client.runsync(body, step.waitMs === undefined ? {} : { wait: step.waitMs }, this.call('runsync', facts, false));
        this.intendedAt = clock.now();
        if (r.jobId === undefined || !ok(r.status)) return false;
        this.jobId = r.jobId;
        this.see(r);
        // As the official clients do: a runsync whose wait ran out is awaited with /status-sync.
        if (step.kind === 'runsync' && !isFinalStatus(this.status)) {
          const s = await client.statusSync(r.jobId, step.waitMs === undefined ? {} : { wait: step.waitMs }, this.call('status-sync', step.waitMs === undefined ? undefined : { wait: step.waitMs }));
          this.intendedAt = clock.now();
          if (ok(s.status)) this.see(s);
        }
        return true;
      }
      case 'poll':
        return this.poll(step.until, step.intervalMs, step.backoff, step.maxIntervalMs, step.timeoutMs);
      case 'stream':
        return this.stream(step.intervalMs, step.timeoutMs);
      case 'cancel': {
        if (this.jobId === undefined) return false;
        if (step.when !== undefined && !(await this.poll(step.when, 100, 1, 100, 60_000))) return false;
        else if (step.afterMs !== undefined) {
          const due = (this.submittedAt ?? clock.now()) + step.afterMs;
          if (!(await this.sleepUntil(due))) return false;
        }
        const r = await client.cancel(this.jobId, this.call('cancel'));
        this.intendedAt = clock.now();
        this.see(r);
        return true;
      }
      case 'retry': {
        if (this.jobId === undefined) return false;
        const r = await client.retry(this.jobId, this.call('retry'));
        this.intendedAt = clock.now();
        if (ok(r.status)) this.see(r);
        return true;
      }
      case 'status': {
        if (this.jobId === undefined) return false;
        const r = await client.status(this.jobId, step.ttlMs === undefined ? {} : { ttl: step.ttlMs }, this.call('status', step.ttlMs === undefined ? undefined : { statusTtl: step.ttlMs }));
        this.intendedAt = clock.now();
        this.see(r);
        return true;
      }
      case 'purge':
        await client.purgeQueue(this.call('purge', undefined, false));
        this.intendedAt = clock.now();
        return true;
      case 'health':
        await client.health(this.call('health', undefined, false));
        this.intendedAt = clock.now();
        return true;
      case 'sleep': {
        const ms = step.minMs + (step.maxMs - step.minMs) * this.ctx.random();
        return this.sleepUntil(clock.now() + ms);
      }
      case 'advance':
        if (!this.ctx.emulator) throw new Error('an advance step needs the embedded emulator with a manual clock');
        // Recorded before the move: what the move sets off (deliveries, expiries) then lands after it.
        this.ctx.emit({ v: RECORD_VERSION, type: 'clock', seq: this.ctx.nextSeq(), at: clock.now(), advancedMs: step.ms });
        await this.ctx.emulator.advance(step.ms);
        this.intendedAt = clock.now();
        return true;
      case 'loop':
        for (let i = 0; i < step.times; i++) {
          if (!(await this.steps(step.steps))) return false;
        }
        return true;
      case 'probe':
        await runProbe(step.probe, this.ctx, (kind, req) => this.call(kind, req, false));
        this.intendedAt = clock.now();
        return true;
      case 'blast': {
        if (step.op === 'status' && this.jobId === undefined) return false;
        await runBlast(step, this.ctx, { flow: this.flow.name, step: `${String(this.stepIndex)}:blast`, ...(this.jobId === undefined ? {} : { jobId: this.jobId }) });
        this.intendedAt = clock.now();
        return true;
      }
    }
  }

  private submission(step: Submission & { kind: 'run' | 'runsync' }): { body: SubmissionBody | Buffer; facts?: RequestFacts } {
    const compiled = this.flow.inputs.get(step);
    const input = compiled ? compiled.render({ iteration: this.n, flow: this.flow.name, random: () => this.ctx.random(), ...(this.row ? { row: this.row } : {}) }) : { ...step.input };
    const body: SubmissionBody = { input };
    const webhook = step.webhook === true ? this.ctx.webhookUrl : step.webhook;
    if (webhook !== undefined) body.webhook = webhook;
    if (step.policy) body.policy = { ...step.policy };
    if (step.s3Config) body.s3Config = { ...step.s3Config };
    if (step.payloadBytes === undefined) return { body };
    const facts: RequestFacts = {};
    if (webhook !== undefined) facts.webhook = webhook;
    if (step.policy?.ttl !== undefined) facts.ttl = step.policy.ttl;
    if (step.policy?.executionTimeout !== undefined) facts.executionTimeout = step.policy.executionTimeout;
    if (step.policy?.lowPriority !== undefined) facts.lowPriority = step.policy.lowPriority;
    return { body: sizedSubmission(step.payloadBytes, body), facts };
  }

  private async poll(until: PollTarget, intervalMs: number, backoff: number, maxIntervalMs: number, timeoutMs: number): Promise<boolean> {
    if (this.jobId === undefined) return false;
    const { client, clock } = this.ctx;
    const deadline = clock.now() + timeoutMs;
    let interval = intervalMs;
    // Always look at least once: a cancel's or runsync's own answer is not an observation of
    // what the job did next, and the checks need that observation.
    for (let first = true; first || !reached(this.status, until); first = false) {
      // A poll that runs out of time leaves the job to the next steps (a cancel, a status).
      if (!first && clock.now() >= deadline) return true;
      const r = await client.status(this.jobId, {}, this.call('poll'));
      if (r.status === 404) return false;
      this.see(r);
      if (reached(this.status, until)) break;
      // Like a real client: the next poll is an interval after this answer, never a catch-up burst.
      this.intendedAt = clock.now() + interval;
      if (!(await this.sleepUntil(this.intendedAt))) return false;
      interval = Math.min(maxIntervalMs, interval * backoff);
    }
    this.intendedAt = clock.now();
    return true;
  }

  /** Reads /stream until the job is final and nothing is left (either response shape). */
  private async stream(intervalMs: number, timeoutMs: number): Promise<boolean> {
    if (this.jobId === undefined) return false;
    const { client, clock } = this.ctx;
    const deadline = clock.now() + timeoutMs;
    for (;;) {
      if (clock.now() >= deadline) return true;
      const r = await client.stream(this.jobId, this.call('stream'));
      if (!ok(r.status)) return false;
      const chunks = Array.isArray(r.body) ? r.body.length : chunkCount(r.body);
      if (!Array.isArray(r.body)) this.see(r);
      if (chunks === 0) {
        // The bare-array shape carries no status: ask /status whether the job is done.
        if (Array.isArray(r.body) && !isFinalStatus(this.status)) this.see(await client.status(this.jobId, {}, this.call('stream-status')));
        if (isFinalStatus(this.status)) break;
      }
      this.intendedAt = clock.now() + intervalMs;
      if (!(await this.sleepUntil(this.intendedAt))) return false;
    }
    this.intendedAt = clock.now();
    return true;
  }

  private async sleepUntil(at: number): Promise<boolean> {
    if (this.ctx.stop.aborted) return false;
    const wait = at - this.ctx.clock.now();
    if (wait <= 0) return true;
    try {
      await this.ctx.clock.sleep(wait, this.ctx.stop);
      return true;
    } catch {
      return false;
    }
  }
}

/** Any 2xx: the checks judge whether it was the right one; the flow goes on either way. */
function ok(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}

function chunkCount(body: unknown): number {
  const s = (body as { stream?: unknown } | undefined)?.stream;
  return Array.isArray(s) ? s.length : 0;
}

/** Runs one flow iteration to its end; never throws for a failed request (records say what happened). */
export async function runIteration(flow: CompiledFlow, ctx: RunContext, intendedAt: number, n: number, row?: DataRow): Promise<void> {
  await new Iteration(flow, ctx, intendedAt, n, row).steps(flow.steps);
}
