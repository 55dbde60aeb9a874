import { z } from 'zod';
import type { ConfigIssue } from '../core/config-error.js';
import type { Fault } from './faults/fault.js';
import { FAULT_LIST } from './faults/fault-list.js';
import { FAITHFUL_POLICY } from './policy/faithful-policy.js';
import type { EmulatorPolicy } from './policy/policy.js';

/** The name of every fault (faults/fault-list.ts). */
export type FaultName = (typeof FAULT_LIST)[number]['name'];

const BY_NAME = new Map<string, Fault<FaultName>>(FAULT_LIST.map((f) => [f.name, f]));

/** Every fault's name with the rule it breaks, in one line (the README and the checker list them). */
export const FAULTS = Object.fromEntries(FAULT_LIST.map((f) => [f.name, f.description])) as Record<
  FaultName,
  string
>;
export const FAULT_NAMES: readonly FaultName[] = FAULT_LIST.map((f) => f.name);

export function isFaultName(name: string): name is FaultName {
  return BY_NAME.has(name);
}

/**
 * Faults as options, the CLI and the admin API give them: a list of `name` or `name=value`, or an
 * object `{ name: true | false | value }`.
 */
export const FaultsInputSchema = z.union([
  z.array(z.string()),
  z.record(z.string(), z.union([z.boolean(), z.number()])),
]);
export type FaultsInput = z.infer<typeof FaultsInputSchema>;

/** The switched-on faults and their values, and the policy they make of the faithful one. */
export class FaultSet {
  private readonly on = new Map<FaultName, number>();
  /** The faithful policy with the switched-on faults applied; rebuilt when they change, never per request. */
  policy: EmulatorPolicy = FAITHFUL_POLICY;

  set(name: FaultName, value: number): void {
    if (value <= 0) this.on.delete(name);
    else this.on.set(name, value);
    this.compose();
  }

  clear(name?: FaultName): void {
    if (name === undefined) this.on.clear();
    else this.on.delete(name);
    this.compose();
  }

  /** Every fault with its description and value (0 when off), for the admin API. */
  list(): { name: FaultName; description: string; enabled: boolean; value: number }[] {
    return FAULT_LIST.map(({ name, description }) => {
      const value = this.on.get(name) ?? 0;
      return { name, description, enabled: value > 0, value };
    });
  }

  enabled(): Record<string, number> {
    return Object.fromEntries(this.on);
  }

  /** Applies the faults from the last listed to the first, so an earlier one wins a shared decision. */
  private compose(): void {
    let policy = FAITHFUL_POLICY;
    for (let i = FAULT_LIST.length - 1; i >= 0; i--) {
      const fault = FAULT_LIST[i] as Fault<FaultName>;
      const value = this.on.get(fault.name);
      if (value !== undefined) policy = { ...policy, ...fault.override(policy, value) };
    }
    this.policy = policy;
  }
}

/**
 * Turns the input forms into (name, value) pairs, collecting every problem (unknown name, a
 * fraction fault's value outside (0, 1]) instead of stopping at the first.
 */
export function parseFaults(
  input: FaultsInput,
  where: string,
): { faults: [FaultName, number][]; issues: ConfigIssue[] } {
  const pairs: [string, boolean | number | string][] = Array.isArray(input)
    ? input.map((item): [string, string | boolean] => {
        const eq = item.indexOf('=');
        return eq < 0 ? [item.trim(), true] : [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
      })
    : Object.entries(input);
  const faults: [FaultName, number][] = [];
  const issues: ConfigIssue[] = [];
  for (const [name, raw] of pairs) {
    if (!isFaultName(name)) {
      issues.push({ where, message: `unknown fault "${name}" (known: ${FAULT_NAMES.join(', ')})` });
      continue;
    }
    const value = faultValue(name, raw);
    if (value === undefined) {
      issues.push({
        where,
        message:
          BY_NAME.get(name)?.defaultFraction === undefined
            ? `${name} is a switch: give true or false, got "${String(raw)}"`
            : `${name} takes a fraction in (0, 1], got "${String(raw)}"`,
      });
      continue;
    }
    faults.push([name, value]);
  }
  return { faults, issues };
}

function faultValue(name: FaultName, raw: boolean | number | string): number | undefined {
  const fraction = BY_NAME.get(name)?.defaultFraction;
  if (raw === true) return fraction ?? 1;
  if (raw === false || raw === 'false') return 0;
  if (fraction === undefined) return raw === 'true' || raw === 1 ? 1 : undefined;
  const n = typeof raw === 'number' ? raw : Number(raw);
  return Number.isFinite(n) && n > 0 && n <= 1 ? n : undefined;
}
