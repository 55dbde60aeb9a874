import { RECORD_VERSION, type DroppedRecord } from '../core/record.js';
import type { DataRow, Scenario } from '../scenario/scenario.js';
import { compileFlows, FlowPicker } from './compiled-flow.js';
import { runIteration } from './iteration.js';
import type { Dispatch } from './pacer.js';
import type { RunContext } from './run-context.js';

/**
 * Starts flow iterations for the pacer's arrivals: picks a flow by weight and a data row, drops
 * arrivals beyond `maxInFlight` (as records), and tells the wind-down when nothing is in flight.
 */
export class Dispatcher implements Dispatch {
  private readonly flows: FlowPicker;
  private iteration = 0;
  private idleListener: (() => void) | undefined;

  constructor(
    private readonly scenario: Scenario,
    private readonly ctx: RunContext,
  ) {
    this.flows = new FlowPicker(compileFlows(scenario.flows));
  }

  arrive(intendedAt: number): void {
    const { counters } = this.ctx;
    counters.arrivals++;
    if (counters.inFlight >= this.scenario.target.maxInFlight) {
      counters.dropped++;
      const d: DroppedRecord = { v: RECORD_VERSION, type: 'dropped', seq: this.ctx.nextSeq(), intendedAt, flow: '*' };
      if (this.ctx.shard) d.shard = this.ctx.shard;
      this.ctx.emit(d);
      return;
    }
    void this.launch(intendedAt);
  }

  launch(intendedAt: number): Promise<void> {
    const { counters } = this.ctx;
    counters.inFlight++;
    const n = this.iteration++;
    const flow = this.flows.pick(this.ctx.random());
    // One reaction for both outcomes (a catch then a finally made three promises per iteration).
    return runIteration(flow, this.ctx, intendedAt, n, this.rowFor(n)).then(this.ended, this.ended);
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
    return this.scenario.data?.order === 'random' ? rows[Math.floor(this.ctx.random() * rows.length)] : rows[n % rows.length];
  }
}
