import type { EpochClock } from '../core/clock.js';
import type { ConnectionWait } from '../core/connection-wait.js';
import type { CpuReading } from '../core/cpu-starvation.js';
import type { GeneratorFigures, GeneratorProbe } from './generator-watch.js';
import type { PreflightResult } from './preflight.js';
import type { JobstormRecord } from '../core/record.js';
import type { ScalingExpectation } from '../core/scaling-expectation.js';
import type { Scenario } from '../scenario/scenario.js';
import type { LiveCounters, EmulatorControl } from './run-context.js';
import type { WebhookAnswers } from './webhook-receiver.js';

export interface ShardSpec {
  /** 1-based. */
  index: number;
  count: number;
}

export interface Target {
  /** `{serverless_url}/v2/<endpointId>`. */
  baseUrl: string;
  /** `{base_url}/v1`, for the management calls. */
  managementUrl?: string;
  apiKey: string;
  /** True for the embedded emulator: the run owns the endpoint, so counts can be compared. */
  ownsEndpoint: boolean;
  /** No other client sends to the endpoint (`--exclusive-endpoint`); defaults to `ownsEndpoint`. */
  exclusiveEndpoint?: boolean;
  /** requestsPerWorker of the dynamic rate limit, when known (the emulator's). */
  requestsPerWorker?: number;
  emulator?: EmulatorControl;
  /** The target's clock moves only when advanced (the emulator's manual clock). */
  clock?: 'manual' | 'real';
  /** The local IP address requests leave from (`--local-address`). */
  localAddress?: string;
  /** The scaling settings the target is known to have (the embedded emulator's); the scenario's `scaling:` wins. */
  scaling?: ScalingExpectation;
}

export interface RunOptions {
  scenario: Scenario;
  target: Target;
  runId: string;
  onRecord(record: JobstormRecord): void;
  /**
   * The run's time and timers, from its owner (the CLI and the library's entry pick the system
   * clock; tests a manual one): pacing, waits, watches and the wall-clock anchor all read it.
   */
  clock: EpochClock;
  shard?: ShardSpec;
  /** First Ctrl-C: stop arrivals, drain, still hand over every record. */
  interrupt?: AbortSignal;
  /** After the last phase, how long flows may take to finish on their own (k6's gracefulStop; default DEFAULT_GRACEFUL_STOP_MS). */
  gracefulStopMs?: number;
  /** After arrivals stop for good, how long in-flight requests may take before they are aborted. */
  drainMs?: number;
  /** Sample /health about once a second (default on). */
  sampleHealth?: boolean;
  webhookAnswers?: WebhookAnswers;
  onProgress?(snapshot: ProgressSnapshot): void;
  progressEveryMs?: number;
  /**
   * High-resolution epoch time (the clock's `epochNow()`) of the run's time 0:
   * shard threads of one run share it, so their records share one time base.
   */
  epochZeroMs?: number;
  /**
   * Called once the run is set up (client, webhook receiver), just before its time 0; resolves
   * with time 0 as in `epochZeroMs`. Shard threads wait here for a start common to all shards.
   * Without it (and without `epochZeroMs`) time 0 is the end of the set-up.
   */
  startAt?(): Promise<number>;
  /** Stop early when this many requests in a row could not connect and none ever did. */
  unreachableAfter?: number;
  /** A few requests before the load: key accepted, endpoint there, routes served (the CLI's default). */
  preflight?: boolean;
  /**
   * Before time 0, run the hot paths against a local sink (default on; see readiness.ts), so
   * second 0 leaves on time.
   */
  warmUp?: boolean;
  /** The warm-up's records, for an owner that warms its own record path on them (never the run's records). */
  onWarmupRecord?: (record: JobstormRecord) => void;
  /** Called when jobstorm itself becomes the bottleneck (GeneratorWatch), with what to tell the user. */
  onGeneratorLimited?: (message: string) => void;
  /**
   * Reads the process's CPU time, from the owner (only the CLI reads `process`): with it, the
   * generator watch tells a run starved of CPU from a saturated one.
   */
  cpu?: () => CpuReading;
  /**
   * How the generator watch reads jobstorm's own loop each second (default: the real event loop,
   * with `cpu`). A run on a manual clock has no real seconds to read it over: its owner says what
   * the loop did instead.
   */
  generatorProbe?: () => GeneratorProbe;
}

export interface ProgressSnapshot extends LiveCounters {
  elapsedMs: number;
  /** Arrivals per second over the last interval. */
  rate: number;
}

export interface RunOutcome {
  runId: string;
  startedAtMs: number;
  durationMs: number;
  interrupted: boolean;
  /** No request ever reached the target (refused, DNS, connect timeout). */
  targetUnreachable: boolean;
  counters: LiveCounters;
  /** Scheduling lateness of arrivals (send − intended), for the bench and the progress line. */
  latenessP99Ms: number;
  /** The generator's own figures over the run (its event loop, arrival lateness per second). */
  generator: GeneratorFigures;
  /** Iterations still in flight when the graceful stop ran out, cut at their next step. */
  iterationsCut?: number;
  /** Arrivals that waited for a free connection before their flow started (see Dispatcher), when any did. */
  connectionWait?: ConnectionWait;
  /** What the preflight found, when it ran; `fatal` means the load never started. */
  preflight?: PreflightResult;
  /**
   * A replayed trace had a bad row past those checked at load: its arrivals stopped there, and the
   * run ended as at its end (what was measured is kept). The row's `file:line` and what is wrong.
   */
  traceError?: string;
  /** A `--workers` thread failed mid-run and the others were stopped (then `interrupted` too): why. */
  failure?: string;
}

/** k6's default gracefulStop: running iterations get this long after the last arrival. */
export const DEFAULT_GRACEFUL_STOP_MS = 30_000;
