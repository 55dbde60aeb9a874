import type { ExchangeRecord } from '../core/record.js';
import { LatencyHistogram } from './histogram.js';

/**
 * Streamed `/openai/*` answers (records with `sse`), as histograms. Tokens per second is kept in
 * a latency histogram too (the histogram is unit-free; one "ms" is one token per second).
 */
export interface TokenData {
  /** Streamed answers that carried at least one token. */
  streams: number;
  tokens: number;
  /** Send → first token, ms. */
  firstToken: string;
  /** Tokens per second of each stream, from its first token to its last. */
  tokensPerSecond: string;
  /** Mean time between two tokens of each stream, ms. */
  tokenGap: string;
  /** Longest time between two tokens of each stream, ms. */
  maxGap: string;
}

export class TokenStats {
  streams = 0;
  tokens = 0;
  readonly firstToken = LatencyHistogram.create();
  readonly tokensPerSecond = LatencyHistogram.create();
  readonly tokenGap = LatencyHistogram.create();
  readonly maxGap = LatencyHistogram.create();

  add(r: ExchangeRecord): void {
    const s = r.sse;
    if (s === undefined || s.tokens === 0 || s.firstTokenAt === undefined || s.lastTokenAt === undefined)
      return;
    this.streams++;
    this.tokens += s.tokens;
    this.firstToken.recordMs(s.firstTokenAt - r.sentAt);
    if (s.tokens < 2) return;
    const span = s.lastTokenAt - s.firstTokenAt;
    // Tokens that arrive together (one read) have no measurable rate; their gap is still 0.
    if (span > 0) this.tokensPerSecond.recordMs(((s.tokens - 1) * 1000) / span);
    this.tokenGap.recordMs(span / (s.tokens - 1));
    this.maxGap.recordMs(s.maxGapMs ?? 0);
  }

  merge(other: TokenStats): void {
    this.streams += other.streams;
    this.tokens += other.tokens;
    this.firstToken.merge(other.firstToken);
    this.tokensPerSecond.merge(other.tokensPerSecond);
    this.tokenGap.merge(other.tokenGap);
    this.maxGap.merge(other.maxGap);
  }

  toJSON(): TokenData {
    return {
      streams: this.streams,
      tokens: this.tokens,
      firstToken: this.firstToken.encode(),
      tokensPerSecond: this.tokensPerSecond.encode(),
      tokenGap: this.tokenGap.encode(),
      maxGap: this.maxGap.encode(),
    };
  }

  static fromJSON(d: TokenData): TokenStats {
    const t = new TokenStats();
    t.streams = d.streams;
    t.tokens = d.tokens;
    t.firstToken.merge(LatencyHistogram.decode(d.firstToken));
    t.tokensPerSecond.merge(LatencyHistogram.decode(d.tokensPerSecond));
    t.tokenGap.merge(LatencyHistogram.decode(d.tokenGap));
    t.maxGap.merge(LatencyHistogram.decode(d.maxGap));
    return t;
  }
}
