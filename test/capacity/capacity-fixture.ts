import type { CapacityReport, CapacityStep } from '../../src/capacity/index.js';
import type { Percentiles } from '../../src/report/summary.js';

function pct(p50: number, p95: number, p99: number, count = 400): Percentiles {
  return { count, min: p50 / 2, mean: (p50 + p95) / 2, p50, p90: p95 * 0.9, p95, p99, max: p99 * 1.2 };
}

function step(
  index: number,
  stage: CapacityStep['stage'],
  offeredRate: number,
  passed: boolean,
): CapacityStep {
  const over = Math.round(Math.max(0, offeredRate - 100));
  return {
    index,
    stage,
    offeredRate,
    submittedRate: offeredRate,
    achievedRate: Math.min(offeredRate, 99.9),
    achievedFrom: 'health',
    passed,
    reasons: passed
      ? []
      : [
          `SLO p95(delayTime) < 1s failed (value ${String(over * 40)}ms)`,
          `no steady state: the queue kept growing by ${String(over)} jobs/s (from 5 to ${String(5 + over * 4)})`,
        ],
    stoppedEarly: !passed,
    startMs: index * 8000,
    measuredMs: 4000,
    arrivals: Math.round(offeredRate * 5.5),
    dropped: 0,
    submitted: offeredRate * 4,
    finished: offeredRate * 4,
    unfinished: 0,
    requests: offeredRate * 12,
    count429: passed ? 0 : 3,
    rate429: passed ? 0 : 3 / (offeredRate * 12),
    e2e: pct(110 + over * 20, 300 + over * 40, 320 + over * 45),
    delayTime: pct(1 + over * 10, 5 + over * 40, 9 + over * 45),
    executionTime: pct(100, 102, 105),
    queue: { samples: 4, first: 0, last: over * 4, max: over * 4, growthPerSec: over, steady: passed },
    workers: { min: 10, max: 10, mean: 10 },
    little: {
      observed: offeredRate * 0.11,
      predicted: offeredRate * 0.105,
      ratio: 1.048,
      timeInSystemMs: 105,
      timeFrom: 'delay+execution',
    },
    thresholds: [
      { expression: 'p95(delayTime) < 1s', value: passed ? 5 : over * 40, ok: passed, unit: 'ms' },
    ],
  };
}

/** A capacity report shaped like a real binary search (truth 100 jobs/s), with a tricky scenario name. */
export function fixtureCapacityReport(): CapacityReport {
  const steps = [
    step(1, 'step', 60, true),
    step(2, 'step', 90, true),
    step(3, 'step', 135, false),
    step(4, 'refine', 112.5, false),
    step(5, 'refine', 101.25, true),
    step(6, 'refine', 106.88, false),
  ];
  return {
    version: 1,
    kind: 'jobstorm-capacity',
    runId: 'capacity-fixture',
    scenario: 'fixture <script>alert(1)</script> & co',
    target: 'http://127.0.0.1:9/v2/jobstorm',
    startedAtMs: Date.UTC(2026, 0, 2, 3, 4, 5),
    durationMs: 48_000,
    mode: 'binary',
    plan: { start: 60, factor: 1.5, increment: null, max: 1000, stepDurationMs: 4000, warmupMs: 1500 },
    slo: ['p95(delayTime) < 1s'],
    verdict: 'found',
    capacity: 101.25,
    confidence: { lastPassing: 101.25, firstFailing: 106.88 },
    steps,
    health: steps.flatMap((s) =>
      [0, 1, 2, 3, 4, 5].map((i) => ({
        atMs: s.startMs + i * 1000,
        step: s.index,
        running: 10,
        idle: 0,
        inQueue: s.passed ? 0 : i * 10,
        inProgress: 10,
      })),
    ),
    targetUnreachable: false,
    interrupted: false,
  };
}
