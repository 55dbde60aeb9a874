import { describe, expect, it } from 'vitest';
import { tokenTimings, type TokenTimeline } from '../../src/metrics/token-timing.js';

/*
 * Issue 48 item 4: one recorded stream, its values worked out by hand for each tool's formula.
 * The stream is a batched one as the vLLM worker sends it (llm-workers.md): chunks of 1, 2, 4 and 8
 * tokens (a batch size growing by 2), sent at 0, first chunk at 120 ms, then 150, 210 and 300 ms,
 * the answer's end at 305 ms. N = 15, TTFT = 120, e2e = 305, e2e − TTFT = 185.
 */
const STREAM: TokenTimeline = {
  sentAt: 1000,
  chunks: [
    { at: 1120, tokens: 1 },
    { at: 1150, tokens: 2 },
    { at: 1210, tokens: 4 },
    { at: 1300, tokens: 8 },
  ],
  endAt: 1305,
};

describe('token timings of one stream, by definition', () => {
  it('the same TTFT, e2e, token count and tokens per second under every definition', () => {
    for (const d of ['jobstorm', 'vllm', 'aiperf', 'guidellm'] as const) {
      const t = tokenTimings(STREAM, d);
      expect(t?.ttftMs, d).toBe(120);
      expect(t?.e2eMs, d).toBe(305);
      expect(t?.outputTokens, d).toBe(15);
      // 15 tokens in 0.305 s.
      expect(t?.tokensPerSecond, d).toBeCloseTo(49.180327, 5);
    }
  });

  it('vllm: TPOT = 185/14; ITL = the three chunk gaps 30, 60, 90', () => {
    const t = tokenTimings(STREAM, 'vllm');
    expect(t?.tpotMs).toBeCloseTo(13.214286, 5);
    expect(t?.itlMs).toEqual([30, 60, 90]);
  });

  it('aiperf: ITL = TPOT = 185/14, one value per request', () => {
    const t = tokenTimings(STREAM, 'aiperf');
    expect(t?.tpotMs).toBeCloseTo(13.214286, 5);
    expect(t?.itlMs).toHaveLength(1);
    expect(t?.itlMs[0]).toBeCloseTo(13.214286, 5);
  });

  it('guidellm: ITL = 185/14 (first token out), TPOT = 305/15 (first token in)', () => {
    const t = tokenTimings(STREAM, 'guidellm');
    expect(t?.itlMs[0]).toBeCloseTo(13.214286, 5);
    expect(t?.tpotMs).toBeCloseTo(20.333333, 5);
  });

  it('jobstorm: each chunk gap spread over its tokens: 2 × 15, 4 × 15, 8 × 11.25 (14 values summing to 180)', () => {
    const t = tokenTimings(STREAM, 'jobstorm');
    expect(t?.itlMs).toEqual([15, 15, 15, 15, 15, 15, 11.25, 11.25, 11.25, 11.25, 11.25, 11.25, 11.25, 11.25]);
    expect(t?.tpotMs).toBeCloseTo(13.214286, 5);
  });

  it('a one-token answer has no TPOT or ITL where the formula divides by N − 1; no chunk, no timings', () => {
    const one: TokenTimeline = { sentAt: 0, chunks: [{ at: 50, tokens: 1 }], endAt: 60 };
    expect(tokenTimings(one, 'vllm')).toMatchObject({ ttftMs: 50, tpotMs: null, itlMs: [] });
    expect(tokenTimings(one, 'aiperf')).toMatchObject({ tpotMs: null, itlMs: [] });
    expect(tokenTimings(one, 'guidellm')).toMatchObject({ tpotMs: 60, itlMs: [] });
    expect(tokenTimings({ sentAt: 0, chunks: [], endAt: 10 }, 'jobstorm')).toBeUndefined();
  });
});
