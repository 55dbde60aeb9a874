import type { EpochClock } from '../core/clock.js';
import type { ExitCode } from '../core/exit-code.js';
import type { JobstormRecord } from '../core/record.js';
import type { Summary } from '../report/summary.js';
import type { ProgressSnapshot, RunOutcome, Target } from '../runner/run-options.js';
import type { Env } from '../scenario/env-interpolation.js';
import type { ScenarioInput } from '../scenario/scenario-schema.js';
import type { CheckSettings, ExportSink, LiveView } from '../session/session-options.js';
import type { RouteLayout } from './remote-target.js';

/** What `runJobstorm` runs, where, and what it tells the caller while it runs. */
export interface RunJobstormOptions {
  /** The scenario as an object, in the shape of a scenario file (what `defineScenario` takes). */
  scenario?: ScenarioInput;
  /** Or a scenario file: `.yaml`, `.yml`, `.json`, `.ts`, `.mts`, `.cts`, `.js`, `.mjs`, `.cjs`. */
  scenarioFile?: string;
  /** Values for `${NAME}` in a scenario file (none by default; pass `process.env` to use yours). */
  env?: Env;
  /**
   * A remote endpoint: `{serverless_url}/v2/<endpointId>` (or any base URL with `routes: 'root'`),
   * or a Target as the runner takes it. None: the embedded emulator, started and closed here.
   */
  target?: string | Target;
  /** The key for a remote target given as a URL. */
  apiKey?: string;
  /** `{base_url}/v1` of a remote target given as a URL (default: its origin + `/v1`). */
  managementUrl?: string;
  routes?: RouteLayout;
  /**
   * No other client sends to the endpoint (`--exclusive-endpoint`): a 429 under the rate limit is
   * then an error, not a warning. Defaults to true for the embedded emulator, false for a remote one.
   */
  exclusiveEndpoint?: boolean;
  /** Emulator faults to switch on (embedded emulator only). */
  faults?: readonly string[];
  /** Aborting it stops arrivals and drains, as Ctrl-C does; the summary then says `interrupted`. */
  signal?: AbortSignal;
  /** Threshold expressions judged beside the scenario's own, e.g. `p99(run) < 500ms`. */
  thresholds?: readonly string[];
  /** The contract checks (default on, default tolerances); false to measure raw load. */
  checks?: boolean | CheckSettings;
  /** A few requests before the load: key, endpoint, routes (default true). */
  preflight?: boolean;
  /** Worker threads, each running a shard of the load (default 1). */
  workers?: number;
  /** After the last arrival, how long running iterations may take to finish (default 30 s). */
  gracefulStopMs?: number;
  /** Live exports (LiveExports), started: fed every record, stopped at the end, figures in the summary. */
  exports?: ExportSink;
  /** The run's id, in every report and export (default `<scenario name>-<UTC time>`). */
  runId?: string;
  /**
   * The run's time and timers (default the system clock). A manual clock shared with an
   * in-process emulator given as `target` runs a scenario without waiting for real time; with no
   * `target`, the embedded emulator starts in this thread on the clock given (not the system's).
   */
  clock?: EpochClock;
  onRecord?: (record: JobstormRecord) => void;
  /** About once a second while the load runs (not with `workers` > 1). */
  onProgress?: (snapshot: ProgressSnapshot, view: LiveView) => void;
  /** jobstorm itself became the bottleneck: its latencies are from then on partly its own. */
  onWarning?: (message: string) => void;
}

export interface JobstormRun {
  /** Everything the reports show: `summary.verdict.status` is the verdict. */
  summary: Summary;
  /** The runner's own account: counters, interruption, the preflight's findings. */
  outcome: RunOutcome;
  /** What `jobstorm run` would exit with. */
  exitCode: ExitCode;
}
