/** Shard i of n (1-based): the arrivals whose global index ≡ i−1 (mod n). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

export function assertShard(shard: Shard): void {
  const { index, count } = shard;
  if (!Number.isInteger(index) || !Number.isInteger(count) || count < 1 || index < 1 || index > count) {
    throw new RangeError(`shard must be i/n with 1 ≤ i ≤ n, got ${index}/${count}`);
  }
}

/** Reads `i/n` (as in `--shard 2/4`); undefined when malformed. */
export function parseShard(text: string): Shard | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (match === null) return undefined;
  const shard = { index: Number(match[1]), count: Number(match[2]) };
  return shard.count >= 1 && shard.index >= 1 && shard.index <= shard.count ? shard : undefined;
}
