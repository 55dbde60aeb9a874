import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JobstormRecord } from '../../src/core/record.js';
import { JobFold } from '../../src/fold/job-fold.js';
import { startEmbeddedTarget, type EmbeddedTarget } from '../../src/library/embedded-target.js';
import { parseScenario } from '../../src/scenario/scenario-parser.js';
import { RunSession } from '../../src/session/run-session.js';
import { checkWithFacts } from '../check/book-facts.js';
import { systemClock } from '../../src/core/clock.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * Issue 33, one job fold: a run session folds each record into job progress once, and its checks,
 * metrics and exports all read that; the checker, a turn behind (TurnBatch), gets the events with
 * the records and folds nothing again. Offline, the checker folds the records itself and judges
 * the same.
 */

const SCENARIO = `name: one-fold
warmup: 1s
emulator: { workersMin: 2, workersMax: 4, coldStart: 0ms }
phases:
  - { duration: 3s, rate: 15 }
flows:
  - name: run-and-poll
    weight: 3
    steps:
      - run: { input: { sleep_ms: 30 } }
      - poll: { until: final, interval: 50ms, timeout: 10s }
  - name: runsync
    steps:
      - runsync: { input: { sleep_ms: 10 }, wait: 5s }
      - status: {}
`;

let embedded: EmbeddedTarget | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await embedded?.emulator.close();
  embedded = undefined;
});

describe('one job fold per run session', () => {
  it('folds every record once for all its consumers, and the checks agree with an offline check', async () => {
    const scenario = parseScenario(SCENARIO, 'one-fold.yaml', { env: {} });
    embedded = await startEmbeddedTarget(scenario);
    const records: JobstormRecord[] = [];
    const add = vi.spyOn(JobFold.prototype, 'add');
    const session = new RunSession({
      clock: systemClock,
      scenario,
      target: embedded.target,
      runId: 'one-fold',
      sinks: { record: (r) => records.push(r) },
      gracefulStopMs: 10_000,
      drainMs: 1000,
    });
    await session.run();
    const summary = await session.finish();
    const folds = new Map<unknown, number>();
    for (const [r] of add.mock.calls) folds.set(r, (folds.get(r) ?? 0) + 1);
    add.mockRestore();

    expect(records.filter((r) => r.type === 'exchange').length).toBeGreaterThan(40);
    // Once each: the session's fold. The checker (or a second fold anywhere) would make it two.
    expect(records.filter((r) => folds.get(r) !== 1)).toEqual([]);

    // Offline, the checker folds the same records itself and judges exactly as it did live.
    const offline = checkWithFacts(records);
    expect(summary.coverage).toEqual(offline.result.coverage);
    const counts = (groups: readonly { id: string; count: number }[]) =>
      Object.fromEntries(groups.map((g) => [g.id, g.count]));
    expect(counts(summary.violations)).toEqual(counts(offline.result.violations));
    expect(offline.facts.submitted).toBeGreaterThan(20);
    // The book's jobs are the fold's: the same submitted and final counts as the metrics (without
    // the warm-up, which the metrics leave out and the checks do not).
    const metrics = new FoldedMetrics();
    for (const r of records) metrics.add(r);
    expect(offline.facts.submitted).toBe(metrics.jobCounts().submitted);
    expect(offline.facts.byState).toEqual(metrics.jobCounts().byState);
  }, 60_000);
});
