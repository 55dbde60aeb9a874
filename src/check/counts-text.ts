import { workersOf, type HealthCounts } from '../core/health-reading.js';

/** The counts of a /health reading as a finding says them. */
export function countsText(s: HealthCounts): string {
  const init = s.initializing === undefined ? '' : `, ${String(s.initializing)} initializing`;
  return `${String(workersOf(s))} workers (${String(s.idle)} idle, ${String(s.running)} running${init}), ${String(s.inQueue)} jobs in queue`;
}
