import type { JobClient } from '../client/job-client.js';
import type { Clock } from '../core/clock.js';
import type { JobstormRecord } from '../core/record.js';
import type { RouteWatch } from '../core/route-watch.js';
import type { DataFeed } from '../scenario/scenario.js';

/** Hooks into the embedded emulator, when the run has one (the `advance` step needs it). */
export interface EmulatorControl {
  advance(ms: number): Promise<void>;
}

/** Everything a flow iteration needs, shared by all iterations of a run. */
export interface RunContext {
  client: JobClient;
  /** Zero at the run's start (DESIGN "Records"). */
  clock: Clock;
  emit(record: JobstormRecord): void;
  nextSeq(): number;
  /** Where and how blast steps send, outside the client (autocannon has its own connections). */
  blastTarget: { baseUrl: string; authorization: string };
  /** URL of the run's webhook receiver, for `webhook: true`. */
  webhookUrl?: string;
  emulator?: EmulatorControl;
  data?: DataFeed;
  shard?: string;
  /** Aborted when arrivals stop for good (end of run or interrupt): iterations wind down. */
  stop: AbortSignal;
  /** Aborted when the drain time is up: requests still in flight end as `aborted` records. */
  abort: AbortSignal;
  /** Uniform [0, 1), seeded. */
  random(): number;
  counters: LiveCounters;
  /** The run sends no key (`auth: none`): probes that need a good key are skipped. */
  keyless?: boolean;
  /** Routes the target was found not to serve: steps stop sending those operations. */
  routes: RouteWatch;
  /**
   * An iteration's first request goes out `lateMs` after it was due: the schedule's lateness, one
   * sample per arrival (later requests of the iteration are due as runner/request-due.ts says).
   */
  arrived(lateMs: number): void;
}

/**
 * What the progress line shows; updated on the hot path, so plain numbers only. Job counts are not
 * here: the line reads them from the run's metrics (RunMetrics.jobCounts), the summary's own.
 */
export interface LiveCounters {
  arrivals: number;
  dropped: number;
  inFlight: number;
  requests: number;
  throttled: number;
  errors: number;
  /** Requests not sent because their route was found missing, by operation. */
  skipped: Record<string, number>;
}

export function newCounters(): LiveCounters {
  return {
    arrivals: 0,
    dropped: 0,
    inFlight: 0,
    requests: 0,
    throttled: 0,
    errors: 0,
    skipped: {},
  };
}
