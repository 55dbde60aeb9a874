import { JobClient } from '../client/job-client.js';
import type { Clock } from '../core/clock.js';
import type { ExchangeRecord, JobstormRecord } from '../core/record.js';
import type { ArrivalSchedule } from '../schedule/index.js';
import type { Scenario } from '../scenario/scenario.js';
import { WarmupSink } from './warmup-sink.js';

/** The flow name of the requests that make the engine ready; their records are never the run's. */
export const WARMUP_FLOW = '_warmup';

/** Round trips at most (a /run and a /status each): enough for the JIT to compile the hot paths. */
const MAX_ROUND_TRIPS = 256;
/** Requests at once: several connections, so the pool's own paths are run too. */
const WIDTH = 16;

/** Each request of the warm-up gives up after this: a sink that cannot answer must not hold the start. */
const REQUEST_TIMEOUT_MS = 2000;

/** Arrivals the schedule plans for its first second: what the warm-up scales to. */
export function firstSecondArrivals(schedule: ArrivalSchedule): number {
  let n = 0;
  for (const a of schedule.arrivals()) {
    if (a.atMs >= 1000 || n >= MAX_ROUND_TRIPS) break;
    n++;
  }
  return n;
}

/**
 * Connections to open before time 0 (ConnectionOpener): one per arrival of the first second, or
 * per virtual user when the run starts closed, at most the pool's size. A slow run does not hold
 * connections it never uses; a run that later needs more opens them as it goes.
 */
export function connectionsToOpen(scenario: Scenario, schedule: ArrivalSchedule): number {
  const first = scenario.phases[0];
  const users = first?.kind === 'vus' ? first.vus : 0;
  return Math.min(scenario.target.connections, Math.max(users, firstSecondArrivals(schedule)));
}

/**
 * Gets the engine ready before time 0, so second 0 leaves on time (issue 35): round trips of
 * `/run` then `/status` through a client like the run's, against a local sink on loopback, until
 * the JIT has compiled the client's request and record code. The target sees none of it (a test's
 * server that counts requests, a rate limit). Their records go to `onRecord` (the session warms its
 * own record path on them), never to the run's records. Scaled to the first second's arrivals, so
 * a slow run pays next to nothing.
 */
export async function warmUp(
  scenario: Scenario,
  clock: Clock,
  roundTrips: number,
  onRecord: (r: JobstormRecord) => void,
): Promise<void> {
  const trips = Math.min(MAX_ROUND_TRIPS, Math.max(0, Math.round(roundTrips)));
  if (trips === 0) return;
  const sink = await WarmupSink.open();
  const client = new JobClient({
    baseUrl: `http://127.0.0.1:${String(sink.port)}/v2/warmup`,
    apiKey: 'warmup',
    auth: scenario.target.auth,
    connections: WIDTH,
    timeoutMs: REQUEST_TIMEOUT_MS,
    clock,
    onRecord,
  });
  const ctx = { flow: WARMUP_FLOW, step: 'warmup' };
  try {
    for (let done = 0; done < trips; done += WIDTH) {
      const width = Math.min(WIDTH, trips - done);
      await Promise.all(
        Array.from({ length: width }, async () => {
          const r = await client.run({ input: { warmup: true } }, ctx);
          await client.status(
            r.jobId ?? 'jobstorm-warmup',
            {},
            { ...ctx, ...(r.jobId ? { jobId: r.jobId } : {}) },
          );
        }),
      );
    }
  } finally {
    await client.destroy();
    await sink.close();
  }
}

/**
 * Records made before time 0 (the preflight's), held until the run record is out, then moved onto
 * the run's time base: their times become negative, as they happened before the load.
 */
export class HeldRecords {
  private held: ExchangeRecord[] | undefined = [];

  /** True when the record was held (before time 0). */
  hold(r: JobstormRecord): boolean {
    if (!this.held || r.type !== 'exchange') return false;
    this.held.push(r);
    return true;
  }

  /** Hands the held records on, each shifted by `shiftMs` (new time base − old), and stops holding. */
  release(shiftMs: number, emit: (r: JobstormRecord) => void): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const r of held) emit(shifted(r, shiftMs));
  }
}

function shifted(r: ExchangeRecord, by: number): ExchangeRecord {
  return {
    ...r,
    intendedAt: r.intendedAt + by,
    sentAt: r.sentAt + by,
    endAt: r.endAt + by,
    ...(r.firstByteAt === undefined ? {} : { firstByteAt: r.firstByteAt + by }),
  };
}
