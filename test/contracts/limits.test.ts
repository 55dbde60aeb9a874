import { describe, expect, it } from 'vitest';
import { effectiveRateLimit, LIMITS, RATE_LIMITS, RATE_WINDOW_MS } from '../../contracts/queue/index.js';

describe('limits (SPEC "Limits")', () => {
  it('reads "MB" either way: decimal must be accepted, above binary must be rejected', () => {
    expect(LIMITS.runPayload).toEqual({ surelyAccepted: 10_000_000, surelyRejected: 10_485_761 });
    expect(LIMITS.runsyncPayload).toEqual({ surelyAccepted: 20_000_000, surelyRejected: 20_971_521 });
    expect(LIMITS.streamChunk).toEqual({ surelyAccepted: 1_000_000, surelyRejected: 1_048_577 });
  });
  it('retention and webhook retries', () => {
    expect(LIMITS.retentionRun).toBe(30 * 60_000);
    expect(LIMITS.retentionRunsync).toBe(60_000);
    expect(LIMITS.retentionRunsyncMax).toBe(5 * 60_000);
    expect(LIMITS.webhookRetries).toBe(2);
    expect(LIMITS.webhookRetrySpacing).toBe(10_000);
  });
});

describe('rate limits', () => {
  it('has the per-operation table per 10 s', () => {
    expect(RATE_WINDOW_MS).toBe(10_000);
    expect(RATE_LIMITS.run).toEqual({ perWindow: 1000, concurrent: 200 });
    expect(RATE_LIMITS.runsync).toEqual({ perWindow: 2000, concurrent: 400 });
    expect(RATE_LIMITS.status).toEqual({ perWindow: 2000, concurrent: 400 });
    expect(RATE_LIMITS.stream).toEqual({ perWindow: 2000, concurrent: 400 });
    expect(RATE_LIMITS.cancel).toEqual({ perWindow: 100, concurrent: 20 });
    expect(RATE_LIMITS['purge-queue']).toEqual({ perWindow: 2 });
    expect(RATE_LIMITS.retry).toBeUndefined();
  });
  it.each([
    [1000, 0, 10, 1000],
    [1000, 50, 10, 1000],
    [1000, 101, 10, 1010],
    [100, 30, 5, 150],
    [2, 1000, 0, 2],
  ])('max(base %i, running %i × per-worker %i) = %i', (base, running, per, expected) => {
    expect(effectiveRateLimit(base, running, per)).toBe(expected);
  });
});
