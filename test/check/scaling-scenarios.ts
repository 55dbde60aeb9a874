import { readFileSync } from 'node:fs';

/** The shipped scenario, as a user runs it (about 45 s). */
export const BURST_SCALING = readFileSync(
  new URL('../../scenarios/burst-scaling.yaml', import.meta.url),
  'utf8',
);

/**
 * scenarios/burst-scaling.yaml in half the time, for the fault proofs: the same shape (two warm
 * workers, lowPriority jobs alone, a burst past workersMax, silence), with a 1 s cold start, a 2 s
 * idle timeout and shorter jobs. The silence outlasts idleTimeout plus the default scale-down
 * tolerance (5 s) after the burst has drained, even when scale-stuck slows the drain.
 */
export const BURST_SCALING_SHORT = `
name: burst-scaling-short
emulator: { workersMin: 2, workersMax: 8, coldStart: 1s, idleTimeout: 2s }
phases:
  - { name: arrivals, count: 40, rate: 20 }
  - { name: silence, duration: 20s, rate: 0 }
flows:
  - name: low-priority
    weight: 1
    steps:
      - run: { input: { sleep_ms: 1500 }, policy: { lowPriority: true } }
      - poll: { until: final, interval: 500ms, timeout: 30s }
  - name: burst
    weight: 3
    steps:
      - sleep: 4s
      - run: { input: { sleep_ms: 1500 } }
      - poll: { until: final, interval: 500ms, timeout: 30s }
`;

/**
 * The scaling checks' proofs: each fault, on BURST_SCALING_SHORT, makes its check fire and no
 * other (scaling.test.ts runs them; the proof table of faults.test.ts counts them).
 */
export const SCALING_PROOFS = [
  { fault: 'low-priority-scales', scenario: BURST_SCALING_SHORT, ids: ['scaling.low-priority'] },
  { fault: 'scale-over-max', scenario: BURST_SCALING_SHORT, ids: ['scaling.above-max'] },
  { fault: 'scale-stuck', scenario: BURST_SCALING_SHORT, ids: ['scaling.stuck'] },
  { fault: 'no-scale-down', scenario: BURST_SCALING_SHORT, ids: ['scaling.no-scale-down'] },
];
