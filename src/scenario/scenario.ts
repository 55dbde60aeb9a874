import type { TokenSettings } from '../core/token-definition.js';
import type { KnownDeviations, SkippedCheck } from '../core/known-deviation.js';
import type { NestingLoopStep, Step } from '../steps/index.js';
import type { DataFeed } from './data-feed.js';
import type { WorkerSpec } from './worker-schema.js';
import type { ExportKind } from '../core/export-kind.js';
import type { TraceFormatName } from '../trace/index.js';

/*
 * The typed, normalized scenario the runner consumes: every default filled in, every duration in
 * milliseconds (fields named `…Ms`), phases and steps as discriminated unions on `kind`.
 */

/** How requests carry the key; `none` for a target without authentication (no key at all). */
export type AuthForm = 'bearer' | 'bare' | 'none';

export interface Retry429Options {
  readonly attempts: number;
  readonly baseMs: number;
  readonly maxMs: number;
}

export interface TargetDefaults {
  readonly auth: AuthForm;
  readonly connections: number;
  /** One timeout for every request; left out, each operation gets its own (client operation-timeout). */
  readonly timeoutMs?: number;
  /** No answer at all for this long while requests wait: a stall. */
  readonly stallAfterMs: number;
  readonly maxInFlight: number;
  readonly retry429?: Retry429Options;
  /**
   * False for a strict run: an operation the target serves to another method is no longer sent.
   * Left out: adapt, send it the way the target takes it.
   */
  readonly adapt?: false;
}

export interface EmulatorOptions {
  readonly workersMin: number;
  readonly workersMax: number;
  readonly requestsPerWorker: number;
  readonly idleTimeoutMs: number;
  readonly coldStartMs: number;
  readonly clock: 'real' | 'manual';
  readonly streamShape: 'envelope' | 'array';
  readonly faults: readonly string[];
  readonly profile: Readonly<Record<string, unknown>>;
}

export interface ArrivalOptions {
  readonly process: 'uniform' | 'poisson' | 'gamma';
  readonly seed: number;
  /** gamma only: the shape of its gaps (1 = Poisson). */
  readonly burstiness?: number;
}

/** Constant rate (per second) for a duration. */
export interface ConstantPhase {
  readonly kind: 'constant';
  readonly name?: string;
  readonly durationMs: number;
  readonly rate: number;
}

/** Rate rising (or falling) linearly from `from` to `to` per second over the duration. */
export interface RampPhase {
  readonly kind: 'ramp';
  readonly name?: string;
  readonly durationMs: number;
  readonly from: number;
  readonly to: number;
}

/** A fixed number of arrivals at `rate` per second, or all at once when `rate` is absent. */
export interface CountPhase {
  readonly kind: 'count';
  readonly name?: string;
  readonly count: number;
  readonly rate?: number;
}

/** Closed model: `vus` virtual users loop the flows for the duration. */
export interface VusPhase {
  readonly kind: 'vus';
  readonly name?: string;
  readonly durationMs: number;
  readonly vus: number;
}

/**
 * A replayed trace (docs/replay.md): each row of the window an arrival at its time, divided by
 * `timeScale`, the window played `loops` times. The window is ms from the trace's first row.
 */
export interface TracePhase {
  readonly kind: 'trace';
  readonly name?: string;
  /** Absolute path of the trace file. */
  readonly file: string;
  readonly format: TraceFormatName;
  readonly timeScale: number;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly loops: number;
}

export type Phase = ConstantPhase | RampPhase | CountPhase | VusPhase | TracePhase;

export type {
  AdvanceStep,
  BlastStep,
  CancelStep,
  HealthStep,
  OpenAiStep,
  Policy,
  PollStep,
  PollTarget,
  ProbeStep,
  PurgeStep,
  RequestsStep,
  RetryStep,
  RunStep,
  RunsyncStep,
  S3Config,
  SleepStep,
  StatusStep,
  Step,
  StreamStep,
  Submission,
} from '../steps/index.js';

export type LoopStep = NestingLoopStep<Step>;

export interface Flow {
  readonly name: string;
  readonly weight: number;
  readonly steps: readonly Step[];
}

export type { DataFeed, DataRow } from './data-feed.js';
import type { ScalingExpectation } from './scaling-schema.js';
import type { ThresholdSpec } from '../core/threshold-spec.js';
export type { ScalingExpectation } from './scaling-schema.js';

/** A scenario's threshold: an expression, or the object form (durations in ms). */
export type ScenarioThreshold = ThresholdSpec;

export interface Scenario {
  readonly name: string;
  readonly description?: string;
  /** The file it was loaded from, as given. */
  readonly source: string;
  readonly target: TargetDefaults;
  readonly emulator: EmulatorOptions;
  /** Real worker processes behind the embedded emulator (`worker:` or `--worker`). */
  readonly worker?: WorkerSpec;
  /** The endpoint's scaling settings as the scenario states them (`scaling:`). */
  readonly scaling?: ScalingExpectation;
  readonly arrivals: ArrivalOptions;
  readonly phases: readonly Phase[];
  /**
   * The unmeasured start of the schedule (ms from time 0; absent for none): requests intended
   * before it are sent and checked but left out of the metrics.
   */
  readonly warmupMs?: number;
  readonly flows: readonly Flow[];
  readonly data?: DataFeed;
  /** How token timings of streamed answers are computed, and goodput's objectives (`llm:`). */
  readonly llm?: TokenSettings;
  /** Unparsed threshold expressions, for the reporter; the object form carries a window or abortOnFail. */
  readonly thresholds: readonly ScenarioThreshold[];
  /** Labels for every exported series. */
  readonly tags?: Readonly<Record<string, string>>;
  /** Live metrics outputs (the file's `export:`). */
  readonly exports?: readonly ExportOutput[];
  /** Gates for `jobstorm compare` (unparsed), and the significance they require. */
  readonly compare?: { readonly gates: readonly string[]; readonly significance?: number };
  /** Checks not run and deviations accepted (`checks:`, `--skip-check`, `--known`); absent for none. */
  readonly checks?: ScenarioChecks;
}

/** What a run does not judge, and what it accepts for now (issue 53). */
export interface ScenarioChecks {
  readonly skip: readonly SkippedCheck[];
  readonly known?: KnownDeviations;
}

export interface ExportOutput {
  readonly kind: ExportKind;
  readonly url: string;
}
