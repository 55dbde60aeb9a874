import type { WorkerSpec } from './worker-schema.js';
import type { JobStatus } from '../core/index.js';
import type { ExportKind } from '../core/export-kind.js';
import type { PROBE_NAMES } from './step-schema.js';

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
  readonly process: 'uniform' | 'poisson';
  readonly seed: number;
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

export type Phase = ConstantPhase | RampPhase | CountPhase | VusPhase;

export interface Policy {
  readonly executionTimeout?: number;
  readonly ttl?: number;
  readonly lowPriority?: boolean;
}

export interface S3Config {
  readonly accessId: string;
  readonly accessSecret: string;
  readonly bucketName: string;
  readonly endpointUrl: string;
}

/** What /run and /runsync send. `input` is a template: render it with `renderInput`. */
export interface Submission {
  readonly input: Readonly<Record<string, unknown>>;
  /** A URL, or true for the runner's own loopback receiver. */
  readonly webhook?: true | string;
  readonly policy?: Policy;
  readonly s3Config?: S3Config;
  readonly payloadBytes?: number;
}

export type PollTarget = 'final' | JobStatus;

export interface RunStep extends Submission {
  readonly kind: 'run';
}
export interface RunsyncStep extends Submission {
  readonly kind: 'runsync';
  readonly waitMs?: number;
}
export interface PollStep {
  readonly kind: 'poll';
  readonly until: PollTarget;
  readonly intervalMs: number;
  readonly backoff: number;
  readonly maxIntervalMs: number;
  readonly timeoutMs: number;
}
export interface StreamStep {
  readonly kind: 'stream';
  readonly timeoutMs: number;
  readonly intervalMs: number;
}
/** Cancel at once (neither field), `afterMs` after submission, or `when` a poll sees that state. */
export interface CancelStep {
  readonly kind: 'cancel';
  readonly afterMs?: number;
  readonly when?: JobStatus;
}
export interface RetryStep {
  readonly kind: 'retry';
}
export interface StatusStep {
  readonly kind: 'status';
  readonly ttlMs?: number;
}
export interface PurgeStep {
  readonly kind: 'purge';
}
export interface HealthStep {
  readonly kind: 'health';
}
/** Think time, uniform in [minMs, maxMs] (equal for a fixed sleep). */
export interface SleepStep {
  readonly kind: 'sleep';
  readonly minMs: number;
  readonly maxMs: number;
}
export interface AdvanceStep {
  readonly kind: 'advance';
  readonly ms: number;
}
export interface LoopStep {
  readonly kind: 'loop';
  readonly times: number;
  readonly steps: readonly Step[];
}
export interface ProbeStep {
  readonly kind: 'probe';
  readonly probe: (typeof PROBE_NAMES)[number];
}

/** autocannon saturating one operation for a while. */
export interface BlastStep {
  readonly kind: 'blast';
  readonly op: 'health' | 'status' | 'run';
  readonly durationMs: number;
  readonly rate?: number;
  readonly connections: number;
}

/** A call of the OpenAI-compatible API; `body` absent for the GET of `models`. */
export interface OpenAiStep {
  readonly kind: 'openai';
  readonly path: 'chat/completions' | 'completions' | 'models';
  readonly body?: Readonly<Record<string, unknown>>;
  readonly stream: boolean;
}
export interface RequestsStep {
  readonly kind: 'requests';
}

export type Step =
  | OpenAiStep
  | RequestsStep
  | RunStep
  | RunsyncStep
  | PollStep
  | StreamStep
  | CancelStep
  | RetryStep
  | StatusStep
  | PurgeStep
  | HealthStep
  | SleepStep
  | AdvanceStep
  | LoopStep
  | ProbeStep
  | BlastStep;

export type StepKind = Step['kind'];

export interface Flow {
  readonly name: string;
  readonly weight: number;
  readonly steps: readonly Step[];
}

/** One row of a data feed: CSV values are strings, JSON lines keep their types. */
export type DataRow = Readonly<Record<string, unknown>>;

export interface DataFeed {
  /** Absolute path of the feed file. */
  readonly file: string;
  readonly order: 'sequential' | 'random';
  readonly columns: readonly string[];
  readonly rows: readonly DataRow[];
}

export interface Scenario {
  readonly name: string;
  readonly description?: string;
  /** The file it was loaded from, as given. */
  readonly source: string;
  readonly target: TargetDefaults;
  readonly emulator: EmulatorOptions;
  /** Real worker processes behind the embedded emulator (`worker:` or `--worker`). */
  readonly worker?: WorkerSpec;
  readonly arrivals: ArrivalOptions;
  readonly phases: readonly Phase[];
  /**
   * The unmeasured start of the schedule (ms from time 0; absent for none): requests intended
   * before it are sent and checked but left out of the metrics.
   */
  readonly warmupMs?: number;
  readonly flows: readonly Flow[];
  readonly data?: DataFeed;
  /** Unparsed threshold expressions, for the reporter. */
  readonly thresholds: readonly string[];
  /** Labels for every exported series. */
  readonly tags?: Readonly<Record<string, string>>;
  /** Live metrics outputs (the file's `export:`). */
  readonly exports?: readonly ExportOutput[];
  /** Gates for `jobstorm compare` (unparsed), and the significance they require. */
  readonly compare?: { readonly gates: readonly string[]; readonly significance?: number };
}

export interface ExportOutput {
  readonly kind: ExportKind;
  readonly url: string;
}
