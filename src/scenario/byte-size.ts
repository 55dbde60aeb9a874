import { bareNumberIssue } from './bare-number.js';

/**
 * Payload sizes: `512B`, `10kB`/`10KB`, `10MB`, `1GB` (decimal) and `10KiB`, `10MiB`, `1GiB`
 * (binary). Both readings exist because the spec's "10 MB" limit is ambiguous and the limits
 * scenarios probe either side of it. A bare number is refused, as with durations; only 0 may go
 * without a unit.
 */
const UNIT_BYTES: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1000,
  mb: 1_000_000,
  gb: 1_000_000_000,
  kib: 1024,
  mib: 1_048_576,
  gib: 1_073_741_824,
};

export const BYTE_SIZE_PATTERN = /^\d+(?:\.\d+)?\s*(?:B|[kKMG]i?B)$|^0+(?:\.0+)?$/;

/** Whole bytes for a size string, or undefined when it is not one (a bare number is not). */
export function parseByteSize(text: string): number | undefined {
  const trimmed = text.trim();
  if (!BYTE_SIZE_PATTERN.test(trimmed)) return undefined;
  const match = /^(\d+(?:\.\d+)?)\s*([kKMG]i?B|B)?$/.exec(trimmed);
  if (match === null) return undefined;
  const unit = UNIT_BYTES[(match[2] ?? 'B').toLowerCase()];
  if (unit === undefined) return undefined;
  return Math.round(Number(match[1]) * unit);
}

/** What is wrong with a size written as a bare number, with the readings to choose from. */
export function byteSizeIssue(value: string | number): string | undefined {
  return bareNumberIssue(value, [
    { suffix: 'B', name: 'byte' },
    { suffix: 'KB', name: 'kilobyte' },
    { suffix: 'MB', name: 'megabyte' },
  ]);
}
