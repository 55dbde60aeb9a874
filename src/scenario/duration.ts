import { BARE_NUMBER, bareNumberIssue } from './bare-number.js';

/**
 * Durations in scenario files and flags: `250us` (or `µs`), `500ms`, `30s`, `1m`, `1h30m`, `2d`.
 * Everything downstream works in milliseconds, so this is the only place that knows the units.
 * A bare number is refused (it once meant milliseconds, silently: `duration: 10` ran for 10 ms);
 * only 0 may go without a unit, since it reads the same in every unit.
 */
// Microseconds three ways: the ASCII spelling, the micro sign (U+00B5) and the Greek mu (U+03BC).
const UNIT_MS = {
  us: 0.001,
  '\u00b5s': 0.001,
  '\u03bcs': 0.001,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
} as const;

type Unit = keyof typeof UNIT_MS;

/** One or more `<number><unit>` parts (`1h30m`), or a lone 0. */
export const DURATION_PATTERN = /^(?:\d+(?:\.\d+)?(?:us|\u00b5s|\u03bcs|ms|s|m|h|d))+$|^0+(?:\.0+)?$/;

const PART = /(\d+(?:\.\d+)?)(us|\u00b5s|\u03bcs|ms|s|m|h|d)/g;

/** Milliseconds for a duration string, or undefined when it is not one (a bare number is not). */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DURATION_PATTERN.test(trimmed)) return undefined;
  if (BARE_NUMBER.test(trimmed)) return 0;
  let total = 0;
  for (const match of trimmed.matchAll(PART)) {
    total += Number(match[1]) * UNIT_MS[match[2] as Unit];
  }
  return total;
}

/**
 * What is wrong with a duration written as a bare number (`10`, `"10"`), with both readings to
 * choose from; undefined for anything else, which the caller judges by its own rules.
 */
export function durationIssue(value: string | number): string | undefined {
  return bareNumberIssue(value, [
    { suffix: 's', name: 'second' },
    { suffix: 'ms', name: 'millisecond' },
  ]);
}

/** The shortest readable form (`90000` → `1m30s`), for messages and reports. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return `${ms}ms`;
  if (ms < 1000 || !Number.isInteger(ms)) return `${Math.round(ms * 1000) / 1000}ms`;
  let rest = ms;
  let out = '';
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const size = UNIT_MS[unit];
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}
