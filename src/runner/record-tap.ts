import { CONNECT_ERROR_KINDS } from '../core/request-error.js';
import type { ExchangeRecord } from '../core/record.js';
import type { RouteWatch } from '../core/route-watch.js';
import type { LiveCounters } from './run-context.js';

/**
 * Watches each exchange on its way to the sinks: live counters, whether the
 * target was ever reached (a run that cannot connect at all stops early instead of sending on),
 * and which routes it lacks (the steps stop sending those; the checks report them).
 */
export class RecordTap {
  connected = false;
  private failedConnects = 0;

  constructor(
    private readonly counters: LiveCounters,
    private readonly unreachableAfter: number,
    private readonly onUnreachable: () => void,
    private readonly routes: RouteWatch,
  ) {}

  exchange(r: ExchangeRecord): void {
    const c = this.counters;
    c.requests++;
    if (r.status === 429) c.throttled++;
    if (r.error) c.errors++;
    if (r.status !== undefined) {
      this.connected = true;
      if (r.status === 404 || r.status === 405 || (r.status >= 200 && r.status < 300)) this.routes.add(r);
    } else if (
      r.error &&
      CONNECT_ERROR_KINDS.has(r.error.kind) &&
      !this.connected &&
      ++this.failedConnects >= this.unreachableAfter
    )
      this.onUnreachable();
  }
}
