import { describe, expect, it } from 'vitest';
import type { ErrorKind } from '../../src/core/request-error.js';
import type { ExchangeRecord, RunRecord, StallRecord } from '../../src/core/record.js';
import type { Summary } from '../../src/report/summary.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { withThresholds } from '../../src/report/summary-thresholds.js';
import { parseThresholds } from '../../src/report/threshold.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * A target that dies mid-run refuses fast, with no status and no contract rule broken: the run
 * used to pass. Requests left without a usable answer now fail it past 1%, unless the scenario
 * bounds `errors` itself; jobstorm's own cuts (aborted) never count.
 */

const RUN: RunRecord = {
  v: 1,
  type: 'run',
  runId: 'r',
  scenario: 's',
  target: 'http://127.0.0.1:1/v2/ep',
  startedAtMs: 1_700_000_000_000,
  ownsEndpoint: false,
};

function exchange(i: number, error?: ErrorKind): ExchangeRecord {
  const at = i * 10;
  const base = {
    v: 1 as const,
    type: 'exchange' as const,
    seq: i + 1,
    op: 'status' as const,
    method: 'GET' as const,
    path: `/status/job-${String(i)}`,
    intendedAt: at,
    sentAt: at,
    endAt: at + 2,
    jobId: `job-${String(i)}`,
    attempt: 1,
    reqBytes: 0,
  };
  if (error) return { ...base, error: { kind: error }, resBytes: 0 };
  return {
    ...base,
    firstByteAt: at + 1,
    status: 200,
    resBytes: 40,
    body: { id: `job-${String(i)}`, status: 'IN_QUEUE' },
  };
}

/** 1,000 requests: `failures` of them failed with the given kinds (in turn), the rest answered 200. */
function summary(
  failures: Partial<Record<ErrorKind, number>>,
  thresholds: string[] = ['p99(status) < 1s'],
  stall?: { at: number; durationMs: number },
): Summary {
  const metrics = new FoldedMetrics();
  metrics.add(RUN);
  const kinds = Object.entries(failures).flatMap(([k, n]) => Array.from({ length: n }, () => k as ErrorKind));
  for (let i = 0; i < 1000; i++)
    metrics.add(exchange(i, i >= 1000 - kinds.length ? kinds[i - (1000 - kinds.length)] : undefined));
  if (stall)
    metrics.add({
      v: 1,
      type: 'stall',
      seq: 2000,
      at: stall.at,
      durationMs: stall.durationMs,
      inFlight: 12,
    } satisfies StallRecord);
  return buildSummary({
    run: RUN,
    metrics,
    checks: ['schema.status'],
    thresholds: parseThresholds(thresholds),
    coverage: { 'schema.status': 900 },
  });
}

describe('requests left without a usable answer', () => {
  it('a target that went down (refused, reset) fails the run, naming the kinds, the share and the stall', () => {
    const s = summary({ refused: 283, reset: 12 }, undefined, { at: 3100, durationMs: 5100 });
    expect(s.verdict.status).toBe('failed');
    expect(s.verdict.reasons[0]).toBe(
      'the target left 295 of 1000 requests (29.5%) without a usable answer (refused 283, reset 12); no answer at all for 5.1 s from t+3s; more than the default 1% (a threshold on errors, e.g. "rate(errors) < 5%", sets your own bound)',
    );
    // The thresholds the scenario set all held: the failure is this rule's alone.
    expect(s.thresholds.every((t) => t.ok)).toBe(true);
  });

  it('timeouts and bodies that are not JSON count too; 1% or less passes', () => {
    expect(summary({ timeout: 6, 'bad-json': 5 }).verdict.status).toBe('failed');
    const few = summary({ reset: 6, timeout: 4 });
    expect(few.verdict.status).toBe('passed');
    expect(few.verdict.reasons.join(' ')).not.toMatch(/usable answer/);
  });

  it("jobstorm's own cuts (aborted by an interrupt or the graceful stop's end) are not the target's", () => {
    const s = summary({ aborted: 400 });
    expect(s.verdict.status).toBe('passed');
  });

  it('a scenario that bounds errors itself decides: its threshold passes or fails the run instead', () => {
    expect(summary({ refused: 40 }, ['rate(errors) < 5%']).verdict.status).toBe('passed');
    expect(summary({ refused: 40 }, ['count(errors{op=status}) < 100']).verdict.status).toBe('passed');
    const strict = summary({ refused: 40 }, ['rate(errors) < 2%']);
    expect(strict.verdict.status).toBe('failed');
    expect(strict.verdict.reasons).toEqual(['threshold failed: rate(errors) < 2%']);
  });

  it('`jobstorm report --threshold` on errors re-judges a stored summary the same way', () => {
    const s = summary({ refused: 40 });
    expect(s.verdict.status).toBe('failed');
    expect(withThresholds(s, parseThresholds(['rate(errors) < 10%'])).verdict.status).toBe('passed');
  });
});
