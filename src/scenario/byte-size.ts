/**
 * Payload sizes: a number of bytes or `512B`, `10kB`/`10KB`, `10MB`, `1GB` (decimal) and `10KiB`,
 * `10MiB`, `1GiB` (binary). Both readings exist because the spec's "10 MB" limit is ambiguous and the
 * limits scenarios probe either side of it.
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

export const BYTE_SIZE_PATTERN = /^\d+(?:\.\d+)?\s*(?:B|[kKMG]i?B)?$/;

/** Whole bytes for a size string, or undefined when it is not one. */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([kKMG]i?B|B)?$/.exec(text.trim());
  if (match === null) return undefined;
  const unit = UNIT_BYTES[(match[2] ?? 'B').toLowerCase()];
  if (unit === undefined) return undefined;
  return Math.round(Number(match[1]) * unit);
}
