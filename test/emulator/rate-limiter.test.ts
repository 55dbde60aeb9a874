import { describe, expect, it } from 'vitest';
import { RATE_WINDOW_MS } from '../../contracts/queue/rate-limits.js';
import { EndpointRateLimiter, SlidingWindow, type LimiterMode } from '../../src/emulator/rate-limiter.js';

/**
 * The rate limiter's decisions one at a time (the emulator's rule, SPEC "Limits"), against the rows
 * of contracts/queue/rate-limits.ts: `purge-queue` 2 per window and no concurrency cap, `requests`
 * 10 per window and 2 at once.
 */
const TABLE: LimiterMode = { off: false, early: false };
const OFF: LimiterMode = { off: true, early: false };
const EARLY: LimiterMode = { off: false, early: true };

describe('sliding window edges', () => {
  it('refuses everything for a whole window when the limit is 0', () => {
    const w = new SlidingWindow();
    expect(w.admit(0, 0)).toBe(RATE_WINDOW_MS);
    expect(w.admit(5000, 0)).toBe(RATE_WINDOW_MS);
    expect(w.count(5000)).toBe(0);
  });

  it('names the wait until the entry that makes room leaves, past the oldest ones', () => {
    const w = new SlidingWindow();
    for (const t of [0, 100, 200, 300]) expect(w.admit(t, 4)).toBe(0);
    // Limit lowered to 2: the third entry (t=200) must leave before a fourth fits under 2.
    expect(w.admit(1000, 2)).toBe(200 + RATE_WINDOW_MS - 1000);
    expect(w.count(RATE_WINDOW_MS - 1)).toBe(4);
    expect(w.count(RATE_WINDOW_MS)).toBe(3);
    expect(w.count(RATE_WINDOW_MS + 300)).toBe(0);
  });

  it('keeps order and count across the ring growing from its wrapped position', () => {
    const w = new SlidingWindow();
    // Fill and drain part of the ring so the head is not at 0 when it grows.
    for (let i = 0; i < 200; i++) w.admit(i, 10_000);
    expect(w.count(RATE_WINDOW_MS + 99)).toBe(100);
    for (let i = 0; i < 400; i++) expect(w.admit(RATE_WINDOW_MS + 99 + i / 1000, 10_000)).toBe(0);
    expect(w.count(RATE_WINDOW_MS + 99.5)).toBe(500);
    // Entries t=100..199, then 400 just before t+10100: at limit 499 the wait is for t=101 to leave.
    expect(w.admit(RATE_WINDOW_MS + 99.5, 499)).toBe(1.5);
    // At 500 it is for t=100, half a millisecond away: a wait is at least 1 ms.
    expect(w.admit(RATE_WINDOW_MS + 99.5, 500)).toBe(1);
    expect(w.count(RATE_WINDOW_MS + 150)).toBe(449);
  });
});

describe('endpoint rate limiter', () => {
  it('never limits an operation without a row', () => {
    const l = new EndpointRateLimiter(0);
    for (let i = 0; i < 50; i++) expect(l.admit('retry', 0, 0, TABLE)).toEqual({ ok: true });
    expect(l.occupy('health', TABLE)).toEqual({ ok: true });
    l.release('health');
  });

  it('refuses past the per-window rate with the exact wait and the limit', () => {
    const l = new EndpointRateLimiter(0);
    expect(l.admit('purge-queue', 0, 0, TABLE)).toEqual({ ok: true });
    expect(l.admit('purge-queue', 4000, 0, TABLE)).toEqual({ ok: true });
    expect(l.admit('purge-queue', 5000, 0, TABLE)).toEqual({
      ok: false,
      reason: 'rate',
      retryAfterMs: RATE_WINDOW_MS - 5000,
      limit: 2,
    });
    expect(l.admit('purge-queue', RATE_WINDOW_MS, 0, TABLE)).toEqual({ ok: true });
  });

  it('raises the rate with running workers × requests per worker, and early mode halves it', () => {
    const l = new EndpointRateLimiter(3);
    for (let i = 0; i < 12; i++) expect(l.admit('purge-queue', i, 4, TABLE).ok).toBe(true);
    expect(l.admit('purge-queue', 12, 4, TABLE)).toMatchObject({ ok: false, reason: 'rate', limit: 12 });
    const e = new EndpointRateLimiter(3);
    for (let i = 0; i < 7; i++) expect(e.admit('purge-queue', i, 5, EARLY).ok).toBe(true);
    // 5 × 3 = 15, halved and rounded down.
    expect(e.admit('purge-queue', 7, 5, EARLY)).toMatchObject({ ok: false, reason: 'rate', limit: 7 });
  });

  it('caps requests in flight, frees a slot on release and never counts below zero', () => {
    const l = new EndpointRateLimiter(0);
    expect(l.admit('requests', 0, 0, TABLE).ok).toBe(true);
    expect(l.admit('requests', 0, 0, TABLE).ok).toBe(true);
    expect(l.admit('requests', 0, 0, TABLE)).toEqual({
      ok: false,
      reason: 'concurrency',
      retryAfterMs: 1000,
      limit: 2,
    });
    l.release('requests');
    expect(l.admit('requests', 0, 0, TABLE).ok).toBe(true);
    for (let i = 0; i < 5; i++) l.release('requests');
    expect(l.snapshot(0, 0)['requests']?.inFlight).toBe(0);
    expect(l.admit('requests', 0, 0, TABLE).ok).toBe(true);
    expect(l.admit('requests', 0, 0, TABLE).ok).toBe(true);
    expect(l.admit('requests', 0, 0, TABLE)).toMatchObject({ ok: false, reason: 'concurrency' });
  });

  it('scales the row, rate and cap, rounding down', () => {
    const half = new EndpointRateLimiter(0);
    const h: LimiterMode = { off: false, early: false, scale: 0.5 };
    expect(half.admit('requests', 0, 0, h).ok).toBe(true);
    expect(half.admit('requests', 0, 0, h)).toMatchObject({ reason: 'concurrency', limit: 1 });
    const big = new EndpointRateLimiter(0);
    const b: LimiterMode = { off: false, early: false, scale: 1.5 };
    for (let i = 0; i < 15; i++) expect(big.admit('requests', i, 0, b, false).ok).toBe(true);
    expect(big.admit('requests', 15, 0, b, false)).toMatchObject({ reason: 'rate', limit: 15 });
    for (let i = 0; i < 3; i++) expect(big.occupy('requests', b).ok).toBe(true);
    expect(big.occupy('requests', b)).toMatchObject({ reason: 'concurrency', limit: 3 });
  });

  it('off mode admits everything yet still takes the slots it is asked for', () => {
    const l = new EndpointRateLimiter(0);
    for (let i = 0; i < 20; i++) expect(l.admit('requests', 0, 0, OFF, false).ok).toBe(true);
    expect(l.snapshot(0, 0)['requests']).toMatchObject({ inWindow: 0, inFlight: 0 });
    expect(l.admit('requests', 0, 0, OFF).ok).toBe(true);
    expect(l.admit('requests', 0, 0, OFF).ok).toBe(true);
    expect(l.admit('requests', 0, 0, OFF).ok).toBe(true);
    expect(l.occupy('requests', OFF).ok).toBe(true);
    expect(l.snapshot(0, 0)['requests']?.inFlight).toBe(4);
    expect(l.admit('requests', 0, 0, TABLE)).toMatchObject({ ok: false, reason: 'concurrency' });
  });

  it('a request admitted without a slot counts in the window and is refused at a full cap', () => {
    const l = new EndpointRateLimiter(0);
    for (let i = 0; i < 10; i++) expect(l.admit('requests', i, 0, TABLE, false).ok).toBe(true);
    expect(l.snapshot(10, 0)['requests']).toMatchObject({ inWindow: 10, inFlight: 0 });
    expect(l.admit('requests', 10, 0, TABLE, false)).toMatchObject({ reason: 'rate', limit: 10 });
    expect(l.occupy('requests', TABLE).ok).toBe(true);
    expect(l.occupy('requests', TABLE).ok).toBe(true);
    expect(l.occupy('requests', TABLE)).toMatchObject({ ok: false, reason: 'concurrency', limit: 2 });
    expect(l.admit('requests', RATE_WINDOW_MS + 20, 0, TABLE, false)).toMatchObject({
      reason: 'concurrency',
    });
  });

  it('shows each row: requests in the window, the effective limit, in flight and the cap', () => {
    const l = new EndpointRateLimiter(100);
    l.admit('purge-queue', 0, 0, TABLE);
    l.admit('cancel', 0, 0, TABLE);
    const s = l.snapshot(1, 3);
    expect(s['purge-queue']).toEqual({ inWindow: 1, limit: 300, inFlight: 1, concurrent: null });
    expect(s['cancel']).toEqual({ inWindow: 1, limit: 300, inFlight: 1, concurrent: 20 });
    expect(s['run']).toEqual({ inWindow: 0, limit: 1000, inFlight: 0, concurrent: 200 });
    expect(l.snapshot(RATE_WINDOW_MS, 0)['cancel']).toMatchObject({ inWindow: 0, limit: 100 });
  });
});
