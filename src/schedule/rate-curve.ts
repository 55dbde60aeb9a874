import type { OpenShape } from './phase-shape.js';

/**
 * The cumulative expected arrivals Λ(t) of an open phase, and its inverse. Times are ms from the
 * phase start; rates are per second.
 */
export interface RateCurve {
  /** Λ at the end of the phase; Infinity for count phases, which end by count, not by time. */
  readonly expected: number;
  /** The time t where Λ(t) = p. */
  timeAt(p: number): number;
}

function constantCurve(rate: number, durationMs: number): RateCurve {
  return { expected: (rate * durationMs) / 1000, timeAt: (p) => (p * 1000) / rate };
}

/**
 * Λ(t) = a·t + k·t²/2 with a the start rate and k the slope (per ms). Solved as
 * t = 2p / (a + √(a² + 2kp)), which stays exact when a = 0 and when the ramp goes down.
 */
function rampCurve(from: number, to: number, durationMs: number): RateCurve {
  if (from === to) return constantCurve(from, durationMs);
  const a = from / 1000;
  const k = (to - from) / 1000 / durationMs;
  return {
    expected: (((from + to) / 2) * durationMs) / 1000,
    timeAt: (p) => (p === 0 ? 0 : (2 * p) / (a + Math.sqrt(Math.max(0, a * a + 2 * k * p)))),
  };
}

export function rateCurve(phase: OpenShape): RateCurve {
  switch (phase.kind) {
    case 'constant':
      return constantCurve(phase.rate, phase.durationMs);
    case 'ramp':
      return rampCurve(phase.from, phase.to, phase.durationMs);
    case 'count':
      // Without a rate every arrival is at the phase start.
      return phase.rate === undefined || phase.rate === 0
        ? { expected: Infinity, timeAt: () => 0 }
        : { expected: Infinity, timeAt: (p) => (p * 1000) / (phase.rate ?? 1) };
  }
}
