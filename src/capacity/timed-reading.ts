import { healthReadingOf, type HealthCounts } from '../core/health-reading.js';
import type { ExchangeRecord } from '../core/record.js';

/** A `/health` reading placed in time: what the capacity search keeps of each read it judges by. */
export interface TimedReading extends HealthCounts {
  /** Midpoint of the exchange, ms on the clock of the records it came from. */
  readonly atMs: number;
}

/** The reading of a /health exchange at its midpoint; undefined when it gives none (core's rules). */
export function timedReadingOf(r: ExchangeRecord): TimedReading | undefined {
  const reading = healthReadingOf(r);
  if (!reading) return undefined;
  const { record, ...counts } = reading;
  return { ...counts, atMs: (record.sentAt + record.endAt) / 2 };
}
