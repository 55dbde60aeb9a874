import type { ExchangeRecord } from '../core/record.js';
import type { Lateness } from './lateness.js';
import type { LiveCounters } from './run-context.js';

const CONNECT_ERRORS = new Set(['refused', 'dns']);

/**
 * Watches each exchange on its way to the sinks: live counters, arrival lateness, and whether the
 * target was ever reached (a run that cannot connect at all stops early instead of sending on).
 */
export class RecordTap {
  connected = false;
  private failedConnects = 0;

  constructor(
    private readonly counters: LiveCounters,
    private readonly lateness: Lateness,
    private readonly unreachableAfter: number,
    private readonly onUnreachable: () => void,
  ) {}

  exchange(r: ExchangeRecord): void {
    const c = this.counters;
    c.requests++;
    if (r.status === 429) c.throttled++;
    if (r.error) c.errors++;
    if (r.status !== undefined) this.connected = true;
    else if (r.error && CONNECT_ERRORS.has(r.error.kind) && !this.connected && ++this.failedConnects >= this.unreachableAfter) this.onUnreachable();
    // Scheduling lateness is about arrivals: the first request of each flow iteration.
    if (r.step?.startsWith('1:') && (r.attempt === undefined || r.attempt === 1)) this.lateness.add(r.sentAt - r.intendedAt);
  }
}
