import { CHECK_CATALOG } from '../check/catalog.js';
import type { JobstormRecord, RunRecord } from '../core/record.js';
import { mergeCaps, type CapCount } from '../core/run-limits.js';
import type { Violation } from '../core/violation.js';
import type { JobCounts, RunMetrics } from '../metrics/run-metrics.js';
import type { WorkerPrice } from '../metrics/scaling-data.js';
import { buildSummary } from '../report/summary-builder.js';
import { resolutionOfMetric } from '../metrics/timing-resolution.js';
import { formatValue } from '../report/format.js';
import type { Summary } from '../report/summary.js';
import { judgeVerdict } from '../report/verdict.js';
import type { RunEnd } from '../report/verdict.js';
import type { RunOptions, RunOutcome } from '../runner/run-options.js';
import { runScenario } from '../runner/runner.js';
import { runScenarioThreaded } from '../runner/threaded-run.js';
import type { CheckStage } from './check-stage.js';
import { runEndOf } from './run-end.js';
import { LiveThresholds, type LiveAbort } from './live-thresholds.js';
import { runPath } from './record-path.js';
import { warmupPath } from './warmup-path.js';
import { ShardTogether, type Halt } from './barrier/shard-together.js';
import type { FinishOptions, LiveView, RunSessionOptions } from './session-options.js';

/**
 * One run as a library object. It starts the runner and owns what happens to each record: the
 * contract checks, the metrics (with the scenario's warm-up window), the live exports, the
 * violations (counted once, handed to metrics and exports), the generator-limited warnings, the
 * forced-exit summary and the summary at the end. Its owner (the CLI's `run`, a capacity step,
 * `runJobstorm`) only hands it sinks: a records file, a progress line, where warnings go.
 *
 * With `workers` > 1 the shard threads only run the load and forward their records: this
 * session, in the calling thread, sees every record of every shard, so checks that judge across
 * jobs (rate limits, scaling) and the metrics see the one run.
 */
export class RunSession {
  private readonly metrics: RunMetrics;
  private readonly checks: CheckStage | undefined;
  /** Each record is folded into job progress there, once, for the checks, metrics and exports alike. */
  private readonly path: (r: JobstormRecord) => void;
  /** What the fold's and the metrics' caps dropped so far. */
  private readonly pathCaps: () => CapCount[];
  private first: RunRecord | undefined;
  private outcome: RunOutcome | undefined;
  /** The latest run record's anchor: shards' records count from their own. */
  private anchorMs: number | undefined;
  private readonly judge: LiveThresholds;
  /** Aborted by a threshold with abortOnFail: stops arrivals as a first Ctrl-C does. */
  private readonly stopper = new AbortController();
  /** With `together`: meets the other shards, and stops with them. */
  private readonly together: ShardTogether | undefined;

  constructor(private readonly o: RunSessionOptions) {
    const { warmupMs, scaling, llm } = o.scenario;
    const path = runPath(
      {
        warmupMs,
        llm,
        price:
          scaling?.pricePerWorkerSecond === undefined
            ? undefined
            : priceOf(scaling.pricePerWorkerSecond, scaling.currency),
        checks: o.checks,
        onViolation: (v) => this.violated(v),
        ...(o.limits ? { limits: o.limits } : {}),
      },
      o.exports ? [o.exports.sink] : [],
    );
    this.metrics = path.metrics;
    this.checks = path.checks;
    this.path = path.add;
    this.pathCaps = path.caps;
    this.judge = new LiveThresholds(o.thresholds ?? [], (a) => this.abortRun(a));
    this.together = o.together
      ? new ShardTogether(
          o.together,
          o.shard ? `${String(o.shard.index)}/${String(o.shard.count)}` : '1/1',
          (why) => this.stopper.abort(new Error(why)),
          (message) => o.sinks?.warning?.(message),
          o.clock,
        )
      : undefined;
  }

  /** Why this shard did not start its schedule (`together` only): its peers never came, or stopped. */
  get halt(): Halt | undefined {
    return this.together?.halt;
  }

  /** The run record, once the runner emitted it. */
  get runRecord(): RunRecord | undefined {
    return this.first;
  }

  /** Violations found so far. */
  get violations(): number {
    return this.checks?.violations ?? 0;
  }

  /** The job counts so far, as the summary will count them. */
  jobCounts(): JobCounts {
    return this.metrics.jobCounts();
  }

  /** What a progress line shows beside the runner's counters. */
  liveView(): LiveView {
    return {
      violations: this.violations,
      jobs: this.jobCounts(),
      latency: this.metrics.liveFigures(),
      failingThresholds: this.judge.failing(),
    };
  }

  /**
   * Takes one record: what `run()` does with each record the runner emits. The first run record
   * anchors the metrics and starts the checks; later ones (shards) only anchor what follows.
   */
  readonly add = (r: JobstormRecord): void => {
    if (r.type === 'run') {
      this.first ??= r;
      this.anchorMs = r.startedAtMs;
      this.judge.start(r.startedAtMs, this.o.scenario.warmupMs);
    }
    this.path(r);
    this.o.sinks?.record?.(r);
    if (r.type === 'exchange' && this.anchorMs !== undefined && this.judge.size > 0)
      this.judgeUpTo(Math.floor((this.anchorMs + r.endAt) / 1000));
  };

  /** A record ended in `sec`: the seconds before it are complete, judged now, and their status exported. */
  private judgeUpTo(sec: number): void {
    if (!this.judge.seen(this.metrics.secondSource(), sec)) return;
    this.o.exports?.sink.thresholds?.(this.judge.statuses());
  }

  /** Stops arrivals and drains (the runner's interrupt), and says so at once. */
  private abortRun(a: LiveAbort): void {
    this.o.sinks?.warning?.(
      `aborted: ${a.threshold} at t+${String(a.at)}s (${formatValue(a.value, a.unit, resolutionOfMetric(a.threshold))}): arrivals stopped; requests in flight drain, then the reports are written`,
    );
    this.stopper.abort(new Error(`aborted: ${a.threshold}`));
    void this.together?.endedEarly(`aborted: ${a.threshold} at t+${String(a.at)}s`);
  }

  /** Runs the scenario, in worker threads when `workers` > 1; resolves when every record is in. */
  async run(): Promise<RunOutcome> {
    if (this.outcome) throw new Error('RunSession.run: a session runs once');
    const o = this.o;
    const workers = o.workers ?? 1;
    const { progress, warning } = o.sinks ?? {};
    const common: RunOptions = {
      scenario: o.scenario,
      target: o.target,
      runId: o.runId,
      clock: o.clock,
      onRecord: this.add,
      onWarmupRecord: warmupPath(o.checks, o.runId),
      // Live, whatever the owner shows: from then on the latencies are partly jobstorm's own.
      ...(warning ? { onGeneratorLimited: warning } : {}),
      ...(progress ? { onProgress: (p) => progress(p, this.liveView()) } : {}),
      interrupt: o.interrupt ? AbortSignal.any([o.interrupt, this.stopper.signal]) : this.stopper.signal,
      ...(o.shard ? { shard: o.shard } : {}),
      gracefulStopMs: o.gracefulStopMs,
      drainMs: o.drainMs,
      ...(o.cpu ? { cpu: o.cpu } : {}),
      ...(o.generatorProbe ? { generatorProbe: o.generatorProbe } : {}),
    };
    // One preflight per run: shard threads and further shards trust the first.
    const preflight = o.preflight === true && workers === 1 && (o.shard?.index ?? 1) === 1;
    const go = (startAt?: RunOptions['startAt']): Promise<RunOutcome> =>
      workers > 1
        ? runScenarioThreaded({ ...common, workers })
        : runScenario({ ...common, preflight, ...(startAt ? { startAt } : {}) });
    this.outcome = this.together ? await this.together.around(o.interrupt, go) : await go();
    return this.outcome;
  }

  /**
   * The summary of what was measured so far, for a forced exit (a second Ctrl-C): no checks'
   * end-of-run judgement, ended as interrupted. A shard's carries when it started and which shard
   * stopped it, as its full summary would: the merge aligns and names by them. Undefined before
   * the run record.
   */
  partialSummary(): Summary | undefined {
    return this.summarySoFar('interrupted');
  }

  /**
   * The summary of what was measured so far, while the run goes on (the live dashboard's): as
   * `partialSummary`, its thresholds judged on what there is, its verdict not yet meant.
   */
  liveSummary(): Summary | undefined {
    return this.summarySoFar('completed');
  }

  private summarySoFar(end: RunEnd): Summary | undefined {
    const run = this.first;
    if (!run) return undefined;
    const summary = buildSummary({
      run,
      metrics: this.metrics,
      ...(this.o.thresholds ? { thresholds: this.o.thresholds } : {}),
      durationMs: this.o.clock.epochNow() - run.startedAtMs,
      end,
    });
    withCaps(summary, this.pathCaps());
    return withTogether(summary, this.together);
  }

  /**
   * After `run()`: the checks' end-of-run judgement, the summary (thresholds, verdict), and the
   * exports stopped with their figures in it when the session owns them.
   */
  async finish(f: FinishOptions = {}): Promise<Summary> {
    const outcome = this.outcome;
    if (!outcome) throw new Error('RunSession.finish: run() first');
    const result = this.checks?.finish();
    const run = this.first;
    if (!run) throw new Error('the runner emitted no run record');
    const summary = buildSummary({
      run,
      metrics: this.metrics,
      checks: this.checks?.started ? CHECK_CATALOG.map((c) => c.id) : [],
      ...(this.checks?.started
        ? { checkDescriptions: Object.fromEntries(CHECK_CATALOG.map((c) => [c.id, c.description])) }
        : {}),
      ...(this.o.thresholds ? { thresholds: this.o.thresholds } : {}),
      durationMs: f.durationMs ?? outcome.durationMs,
      end: f.end ?? this.endOf(outcome),
      ...(this.judge.aborted
        ? { aborted: { threshold: this.judge.aborted.threshold, at: this.judge.aborted.at } }
        : {}),
      ...(result ? { coverage: result.coverage, checkNotes: result.notes } : {}),
      ...(outcome.preflight ? { preflight: outcome.preflight.findings } : {}),
      ...(outcome.iterationsCut ? { iterationsCut: outcome.iterationsCut } : {}),
      ...(outcome.connectionWait ? { connectionWait: outcome.connectionWait } : {}),
      generator: outcome.generator,
      failure: outcome.failure,
    });
    withCaps(summary, mergeCaps(this.pathCaps(), result?.caps));
    const exports = this.o.exports;
    if (exports?.stopAtFinish) summary.exports = await exports.sink.stop();
    return withTogether(summary, this.together);
  }

  /** Aborted by a threshold unless something worse stopped the run (a failed thread, Ctrl-C first). */
  private endOf(outcome: RunOutcome): RunEnd {
    const end = runEndOf(outcome);
    return this.judge.aborted && (end === 'interrupted' || end === 'completed') ? 'aborted' : end;
  }

  private violated(v: Violation): void {
    this.metrics.addViolation(v);
    this.o.exports?.sink.addViolation(v);
  }
}

/** The caps that dropped detail (RunLimits), in the summary when any did: reports then say how much. */
function withCaps(summary: Summary, caps: CapCount[]): void {
  if (caps.length > 0) summary.caps = caps;
}

/** The summary with when the shards started together and which one stopped this one; judged again. */
function withTogether(summary: Summary, together: ShardTogether | undefined): Summary {
  if (!together) return summary;
  const run = { ...summary.run, ...together.runInfo() };
  const next = { ...summary, run };
  return { ...next, verdict: judgeVerdict(next) };
}

function priceOf(pricePerWorkerSecond: number, currency: string | undefined): WorkerPrice {
  return { pricePerWorkerSecond, currency };
}
