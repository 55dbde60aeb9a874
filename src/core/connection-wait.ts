/**
 * Arrivals that came while every connection carried a request and waited for one before their
 * flow started (src/runner/dispatcher.ts): their latency from the intended start includes the wait.
 */
export interface ConnectionWait {
  arrivals: number;
  /** From the intended start to when a connection was free. */
  longestMs: number;
  /** Connections per origin (`target.connections`). */
  connections: number;
}

/**
 * Threads and shards each have their own connections: the waits add up, the longest is any one's.
 * A part where no arrival waited has none (undefined); when none had any, neither has the whole.
 */
export function mergeConnectionWaits(
  parts: readonly (ConnectionWait | undefined)[],
): ConnectionWait | undefined {
  const waits = parts.filter((w): w is ConnectionWait => w !== undefined);
  if (waits.length === 0) return undefined;
  return {
    arrivals: waits.reduce((n, w) => n + w.arrivals, 0),
    longestMs: Math.max(...waits.map((w) => w.longestMs)),
    connections: Math.max(...waits.map((w) => w.connections)),
  };
}
