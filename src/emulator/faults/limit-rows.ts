import type { LimiterMode } from '../rate-limiter.js';
import type { EmulatorPolicy, LimitRow } from '../policy/policy.js';

const ROWS: readonly LimitRow[] = ['queue', 'openai', 'requests'];

/**
 * The limiter modes of `base` with `change` applied to `rows`, computed once here so that a
 * request reads a constant, as the faithful policy's requests do.
 */
export function limitRows(
  base: EmulatorPolicy,
  rows: readonly LimitRow[],
  change: (mode: LimiterMode) => LimiterMode,
): Partial<EmulatorPolicy> {
  const modes = Object.fromEntries(ROWS.map((row) => [row, base.limiterMode(row)])) as Record<
    LimitRow,
    LimiterMode
  >;
  for (const row of rows) modes[row] = change(modes[row]);
  return { limiterMode: (row) => modes[row] };
}
