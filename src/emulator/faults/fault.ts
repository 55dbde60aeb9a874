import type { EmulatorPolicy } from '../policy/policy.js';

/**
 * The decisions a fault replaces, given the policy below it (faithful, or with other faults
 * already applied) and the fault's value (1 for a switch, the fraction for a fraction fault).
 */
export type PolicyOverride = (base: EmulatorPolicy, value: number) => Partial<EmulatorPolicy>;

/**
 * One switch per rule of the spec the emulator can break. Each exists to prove that a check of
 * the toolkit catches what it claims to catch, so each changes exactly the behaviour it names and
 * nothing else. The description is the rule it breaks, in one line (the checker lists them).
 */
export interface Fault<N extends string = string, T extends string = string> {
  readonly name: N;
  readonly description: string;
  /**
   * Every check id this fault may make fire, those its proof shows firing first: the proof
   * (test/check/faults.test.ts) fails when any other id fires. Plain strings because the emulator
   * may not import src/check; test/check/fault-sets.test.ts types them against CheckId.
   */
  readonly mayTrip: readonly T[];
  readonly override: PolicyOverride;
  /** Set for a fault that takes a fraction in (0, 1]: its value when switched on without one. */
  readonly defaultFraction?: number;
}

/**
 * `mayTrip` is required, before the override, so that a fault declared without its set of check
 * ids does not compile.
 */
export function defineFault<const N extends string, const T extends string>(
  name: N,
  description: string,
  mayTrip: readonly T[],
  override: PolicyOverride,
  defaultFraction?: number,
): Fault<N, T> {
  return defaultFraction === undefined
    ? { name, description, mayTrip, override }
    : { name, description, mayTrip, override, defaultFraction };
}

/** Reads counted per key (a job, an endpoint) for the faults that act on every second one. */
export class ReadCounter {
  private readonly counts = new WeakMap<object, number>();

  /** Counts one more read of `key` and returns how many there have been. */
  next(key: object): number {
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n;
  }
}
