import type { CallContext, JobResult } from '../client/client-options.js';
import type { JobStatus } from '../core/job-status.js';
import type { RequestFacts } from '../core/record.js';
import type { TraceSizes } from '../scenario/input-template.js';
import type { DataRow, Step } from '../scenario/scenario.js';
import type { CompiledFlow } from './compiled-flow.js';
import { RequestDue } from './request-due.js';
import type { RunContext } from './run-context.js';
import { runStep, type ChatMessage, type IterationState } from '../steps/index.js';

// Step labels (`index:kind`) of the first steps, made once instead of once per request.
const LABELS: Record<string, string>[] = [];
const LABELLED_STEPS = 64;

function stepLabel(index: number, kind: string): string {
  if (index >= LABELLED_STEPS) return `${String(index)}:${kind}`;
  const byKind = (LABELS[index] ??= {});
  return (byKind[kind] ??= `${String(index)}:${kind}`);
}

/** The state of one pass through a flow; each step kind's behaviour lives in `steps/`. */
class Iteration implements IterationState {
  jobId: string | undefined;
  status: JobStatus | undefined;
  submittedAt: number | undefined;
  readonly conversation: ChatMessage[] = [];
  stepIndex = 0;
  private readonly due: RequestDue;
  /** The first request has gone out (its lateness is the arrival's), or the lateness was taken. */
  private sent: boolean;
  /** No request has gone out yet: the next is the arrival's first. */
  private first = true;

  constructor(
    readonly flow: CompiledFlow,
    readonly ctx: RunContext,
    intendedAt: number,
    readonly n: number,
    readonly row: DataRow | undefined,
    lateTaken: boolean,
    readonly trace: TraceSizes | undefined,
  ) {
    this.due = new RequestDue(intendedAt);
    this.sent = lateTaken;
  }

  async steps(steps: readonly Step[]): Promise<boolean> {
    for (const step of steps) {
      if (this.ctx.stop.aborted && this.stepIndex > 0) return false;
      this.stepIndex++;
      if (!(await runStep(step, this))) return false;
    }
    return true;
  }

  call(kind: string, req?: RequestFacts, forJob = true): CallContext {
    const now = this.ctx.clock.now();
    const intendedAt = this.due.take(now);
    if (!this.sent) {
      this.sent = true;
      this.ctx.arrived(now - intendedAt);
    }
    const c: CallContext = {
      intendedAt,
      flow: this.flow.name,
      step: stepLabel(this.stepIndex, kind),
      signal: this.ctx.abort,
    };
    if (forJob && this.jobId !== undefined) c.jobId = this.jobId;
    if (req) c.req = req;
    if (this.first) {
      this.first = false;
      c.arrival = true;
    }
    return c;
  }

  see(r: JobResult): void {
    if (r.jobStatus !== undefined) this.status = r.jobStatus;
  }

  waitUntil(at: number): Promise<boolean> {
    return this.sleepUntil(this.due.waitUntil(at, this.ctx.clock.now()));
  }

  waitFor(ms: number): Promise<boolean> {
    return this.sleepUntil(this.due.waitFor(ms, this.ctx.clock.now()));
  }

  worked(): void {
    this.due.dropPlan();
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

/**
 * Runs one flow iteration to its end; never throws for a failed request (records say what happened).
 * `lateTaken`: the arrival's lateness was already taken (it waited for a connection, see Dispatcher).
 * `trace`: the trace row the arrival replays, whose sizes the templates read.
 */
export function runIteration(
  flow: CompiledFlow,
  ctx: RunContext,
  intendedAt: number,
  n: number,
  row?: DataRow,
  lateTaken = false,
  trace?: TraceSizes,
): Promise<boolean> {
  return new Iteration(flow, ctx, intendedAt, n, row, lateTaken, trace).steps(flow.steps);
}
