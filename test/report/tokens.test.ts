import { describe, expect, it } from 'vitest';
import {
  RECORD_VERSION,
  type ExchangeRecord,
  type JobstormRecord,
  type RunRecord,
} from '../../src/core/record.js';
import { htmlReporter } from '../../src/report/html-reporter.js';
import { markdownReporter } from '../../src/report/markdown-reporter.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { parseSummary } from '../../src/report/summary-schema.js';
import { terminalReporter } from '../../src/report/terminal-reporter.js';
import { FoldedMetrics } from '../helpers/folded.js';

/* Issue 18: streamed /openai/* answers in the metrics and reports. */

const run: RunRecord = {
  v: RECORD_VERSION,
  type: 'run',
  runId: 'tokens',
  scenario: 'chat',
  target: 'http://127.0.0.1:1/v2/x',
  startedAtMs: 1_717_000_000_000,
  ownsEndpoint: true,
};

/** A streamed answer sent at `at`: first token `ttft` ms later, then `tokens - 1` more, `gap` ms apart. */
function streamed(seq: number, at: number, ttft: number, tokens: number, gap: number): ExchangeRecord {
  const first = at + ttft;
  const last = first + gap * (tokens - 1);
  return {
    v: RECORD_VERSION,
    type: 'exchange',
    seq,
    op: 'openai',
    method: 'POST',
    path: '/openai/v1/chat/completions',
    intendedAt: at,
    sentAt: at,
    firstByteAt: at + 1,
    endAt: last + 1,
    status: 200,
    reqBytes: 100,
    resBytes: 2000,
    sse: {
      events: tokens + 2,
      tokens,
      badEvents: 0,
      done: true,
      afterDone: 0,
      firstTokenAt: first,
      lastTokenAt: last,
      maxGapMs: gap,
    },
  };
}

const records: JobstormRecord[] = [
  streamed(1, 0, 200, 11, 20),
  streamed(2, 100, 400, 21, 10),
  streamed(3, 200, 300, 1, 0),
];

function summaryOf(rs: readonly JobstormRecord[], shard?: string): ReturnType<typeof buildSummary> {
  const r0: RunRecord = shard === undefined ? run : { ...run, shard };
  const m = new FoldedMetrics();
  m.add(r0);
  for (const r of rs) m.add(r);
  return buildSummary({ metrics: m, run: r0 });
}

describe('streamed token metrics', () => {
  it('time to first token, tokens per second and the time between tokens', () => {
    const t = summaryOf(records).tokens;
    expect(t?.streams).toBe(3);
    expect(t?.tokens).toBe(33);
    expect(t?.firstToken.percentiles.count).toBe(3);
    expect(t?.firstToken.percentiles.min).toBeCloseTo(200, 0);
    expect(t?.firstToken.percentiles.max).toBeCloseTo(400, 0);
    // A one-token stream has no rate and no gaps.
    expect(t?.tokensPerSecond.percentiles.count).toBe(2);
    expect(t?.tokensPerSecond.percentiles.min).toBeCloseTo(50, 0);
    expect(t?.tokensPerSecond.percentiles.max).toBeCloseTo(100, 0);
    expect(t?.tokenGap.percentiles.max).toBeCloseTo(20, 0);
  });

  it('are absent from runs that streamed nothing, so other reports stay as they were', () => {
    expect(summaryOf([]).tokens).toBeUndefined();
  });

  it('merge exactly: two shards give the figures of one', () => {
    const whole = summaryOf(records);
    const merged = mergeSummaries([
      summaryOf(records.slice(0, 1), '1/2'),
      summaryOf(records.slice(1), '2/2'),
    ]);
    expect(merged.tokens).toEqual(whole.tokens);
    const back = parseSummary(JSON.parse(JSON.stringify(whole)), 'summary.json');
    expect(back.tokens).toEqual(whole.tokens);
  });

  it('show in the HTML report', () => {
    const html = htmlReporter.render(summaryOf(records));
    expect(html).toContain('Streamed answers: 3, tokens: 33.');
    expect(html).toContain('<td>time to first token</td>');
  });

  it('show in the terminal and Markdown summaries', () => {
    const s = summaryOf(records);
    for (const text of [terminalReporter.render(s), markdownReporter.render(s)]) {
      expect(text).toMatch(/streamed answers: 3 · tokens: 33|Streamed answers: 3, tokens: 33\./);
      expect(text).toContain('time to first token');
      expect(text).toMatch(/tokens per second.*\/s/);
      expect(text).toContain('time between tokens (mean)');
    }
  });
});
