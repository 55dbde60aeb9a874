import type { TraceSizes } from '../scenario/input-template.js';

/**
 * The trace rows of arrivals waiting for a connection, in step with the ArrivalQueue's times (the
 * ring there holds doubles only). Used only when a phase replays a trace, so other runs pay nothing.
 */
export class TraceRowQueue {
  private items: (TraceSizes | undefined)[] = [];
  private head = 0;

  push(row: TraceSizes | undefined): void {
    this.items.push(row);
  }

  shift(): TraceSizes | undefined {
    const row = this.items[this.head];
    this.items[this.head++] = undefined;
    // Drop the taken half now and then, so a long backlog does not keep its whole past.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return row;
  }
}
