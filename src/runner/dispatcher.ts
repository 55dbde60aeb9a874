import type { ConnectionWait } from '../core/connection-wait.js';
import { RECORD_VERSION, type DroppedRecord } from '../core/record.js';
import type { TraceSizes } from '../scenario/input-template.js';
import type { DataRow, Scenario } from '../scenario/scenario.js';
import { ArrivalQueue } from './arrival-queue.js';
import { compileFlows, FlowPicker } from './compiled-flow.js';
import { runIteration } from './iteration.js';
import type { Dispatch } from './pacer.js';
import type { RunContext } from './run-context.js';
import { TraceRowQueue } from './trace-row-queue.js';

/**
 * Starts flow iterations for the pacer's arrivals: picks a flow by weight and a data row, drops
 * arrivals beyond `maxInFlight` (as records), and tells the wind-down when nothing is in flight.
 *
 * An arrival that comes while every connection carries a request waits for one as a number, not as
 * a started iteration: its request could only have waited in the pool's queue. The cost is why. At
 * 8,000 requests/s on one core, jobstorm's first seconds (before the JIT has done its work) run
 * slower than the arrivals come; thousands of started iterations then waited in the pool, lived
 * long enough to be promoted to the old generation (the heap grew from 25 MB to 120-330 MB), and
 * the collector's work kept the loop saturated for 3-11 s, once for a whole 15 s run (p99 of
 * 0.4-3 s). Waiting as numbers, the heap stayed under 60 MB and the same runs caught up in 0-3 s.
 * Iterations already started go first: their next requests queue in the pool, where a waiting
 * arrival is only let in while a connection is free, so work in progress finishes and frees its
 * memory. Latency is unchanged in meaning: it counts from the intended time, wait included; the
 * arrival's lateness is taken when it came (the pacer's precision), and its first record's
 * `sentAt` says when it got a connection.
 */
export class Dispatcher implements Dispatch {
  private readonly flows: FlowPicker;
  private iteration = 0;
  private idleListener: (() => void) | undefined;
  private readonly waiting = new ArrivalQueue();
  /** The waiting arrivals' trace rows, when a phase replays a trace. */
  private readonly waitingRows: TraceRowQueue | undefined;
  private waited = 0;
  private longestWaitMs = 0;

  constructor(
    private readonly scenario: Scenario,
    private readonly ctx: RunContext,
  ) {
    this.flows = new FlowPicker(compileFlows(scenario.flows));
    if (scenario.phases.some((p) => p.kind === 'trace')) this.waitingRows = new TraceRowQueue();
  }

  arrive(intendedAt: number, trace?: TraceSizes): void {
    const { counters } = this.ctx;
    counters.arrivals++;
    if (counters.inFlight >= this.scenario.target.maxInFlight) {
      counters.dropped++;
      const d: DroppedRecord = {
        v: RECORD_VERSION,
        type: 'dropped',
        seq: this.ctx.nextSeq(),
        intendedAt,
        flow: '*',
      };
      if (this.ctx.shard) d.shard = this.ctx.shard;
      this.ctx.emit(d);
      return;
    }
    if (this.waiting.length > 0 || this.ctx.client.saturated) {
      // In flight from now on, for maxInFlight, the progress line and the wind-down.
      counters.inFlight++;
      this.ctx.arrived(this.ctx.clock.now() - intendedAt);
      this.waiting.push(intendedAt);
      this.waitingRows?.push(trace);
      this.waited++;
      return;
    }
    void this.start(intendedAt, false, trace);
  }

  launch(intendedAt: number): Promise<void> {
    return this.start(intendedAt, false);
  }

  /**
   * Starts waiting arrivals, oldest first, while a connection is free; called as each request
   * ends. When the drain time is up, requests in flight end as aborted, and each one's end starts
   * the next waiting arrival, whose request is aborted at once: every arrival still ends as a record.
   */
  readonly admit = (): void => {
    const { client, clock } = this.ctx;
    while (this.waiting.length > 0 && !client.saturated) {
      this.ctx.counters.inFlight--;
      const at = this.waiting.shift();
      this.longestWaitMs = Math.max(this.longestWaitMs, clock.now() - at);
      void this.start(at, true, this.waitingRows?.shift());
    }
  };

  /** The arrivals that waited for a connection, for the report; none waited: undefined. */
  connectionWait(): ConnectionWait | undefined {
    if (this.waited === 0) return undefined;
    return {
      arrivals: this.waited,
      longestMs: Math.round(this.longestWaitMs),
      connections: this.ctx.client.connections,
    };
  }

  private start(intendedAt: number, lateTaken: boolean, trace?: TraceSizes): Promise<void> {
    const { counters } = this.ctx;
    counters.inFlight++;
    const n = this.iteration++;
    const flow = this.flows.pick(this.ctx.random());
    // One reaction for both outcomes (a catch then a finally made three promises per iteration).
    return runIteration(flow, this.ctx, intendedAt, n, this.rowFor(n), lateTaken, trace).then(
      this.ended,
      this.ended,
    );
  }

  private readonly ended = (): void => {
    const { counters } = this.ctx;
    counters.inFlight--;
    if (counters.inFlight === 0) this.idleListener?.();
  };

  /** Resolves once nothing is in flight, or after `ms`, whichever is first. */
  waitIdle(ms: number): Promise<void> {
    if (this.ctx.counters.inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const cancel = this.ctx.clock.schedule(ms, resolve);
      this.idleListener = () => {
        cancel();
        resolve();
      };
    });
  }

  private rowFor(n: number): DataRow | undefined {
    const rows = this.scenario.data?.rows ?? [];
    if (rows.length === 0) return undefined;
    return this.scenario.data?.order === 'random'
      ? rows[Math.floor(this.ctx.random() * rows.length)]
      : rows[n % rows.length];
  }
}
