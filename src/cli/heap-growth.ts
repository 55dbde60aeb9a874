import { setFlagsFromString } from 'node:v8';

/**
 * How far the heap may grow past what a full collection left alive before the next one: 300 %
 * (four times the live size), always. V8 chooses between 10 % and 300 % on its own, from how fast
 * the program allocates against how fast it collects: 300 % for a program at ease.
 *
 * A load run allocates fast for its whole length, so V8's own choice falls to 10-30 % once the
 * run is under way: mark-compacts come a second or less apart, and on a loaded core each holds
 * the event loop for 30-80 ms (marking shares the core), long enough for arrivals to be sent
 * late and a p99 taken from their intended times to be jobstorm's own pause. Measured at 6,000
 * arrivals/s for 15 s (5 s warm-up) with every check on, one core each for jobstorm and the
 * target: three mark-compacts in the measured window and p99s of 27-56 ms; at 300 %, none or
 * one, and p99s of 5-33 ms (median 9). A light run changes nothing: V8 was at 300 % already.
 * The cost is memory, at most four times what is alive (V8 still stops halfway to its ceiling).
 */
export const HEAP_GROWING_PERCENT = 300;

/**
 * Sets V8's heap growth for this process (shard and worker threads included: V8's flags are the
 * process's), unless the user's `node` flags chose one: theirs wins.
 * `setFlagsFromString` after start-up is safe for this flag: V8 reads it each time it sets the
 * next collection's limit. Returns whether it set it.
 */
export function steadyHeapGrowth(
  nodeFlags: readonly string[],
  set: (flags: string) => void = setFlagsFromString,
): boolean {
  if (nodeFlags.some((flag) => /^--heap[-_]growing[-_]percent(=|$)/.test(flag))) return false;
  set(`--heap-growing-percent=${String(HEAP_GROWING_PERCENT)}`);
  return true;
}
