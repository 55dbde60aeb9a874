import { describe, expect, it } from 'vitest';
import {
  RECORD_VERSION,
  type ExchangeRecord,
  type JobstormRecord,
  type OutputFacts,
  type RunRecord,
} from '../../src/core/record.js';
import type { TokenSettings } from '../../src/metrics/llm-stats.js';
import { htmlReporter } from '../../src/report/html-reporter.js';
import { markdownReporter } from '../../src/report/markdown-reporter.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { parseSummary } from '../../src/report/summary-schema.js';
import { terminalReporter } from '../../src/report/terminal-reporter.js';
import { evaluateThresholds } from '../../src/report/threshold-evaluation.js';
import { parseThresholds } from '../../src/report/threshold.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * Issue 48: streamed LLM answers in the metrics and reports, by path (/openai, /run + /stream)
 * and count (tokens, chunks), with goodput. Every figure below is worked out by hand.
 */

const run: RunRecord = {
  v: RECORD_VERSION,
  type: 'run',
  runId: 'tokens',
  scenario: 'chat',
  target: 'http://127.0.0.1:1/v2/x',
  startedAtMs: 1_717_000_000_000,
  ownsEndpoint: true,
};

function exchange(seq: number, over: Partial<ExchangeRecord>): ExchangeRecord {
  return {
    v: RECORD_VERSION,
    type: 'exchange',
    seq,
    op: 'openai',
    method: 'POST',
    path: '/openai/v1/chat/completions',
    intendedAt: 0,
    sentAt: 0,
    endAt: 0,
    status: 200,
    reqBytes: 100,
    resBytes: 2000,
    ...over,
  };
}

/** An OpenAI stream sent at `at`: `n` arrivals of one delta, the first `ttft` ms later, `gap` apart. */
function openaiStream(
  seq: number,
  at: number,
  ttft: number,
  n: number,
  gap: number,
  usage?: number,
): ExchangeRecord {
  const arrivals: [number, number][] = Array.from({ length: n }, (_, i) => [at + ttft + i * gap, 1]);
  const output: OutputFacts = { unit: 'chunks', arrivals };
  if (usage !== undefined) output.usageTokens = usage;
  return exchange(seq, {
    intendedAt: at,
    sentAt: at,
    endAt: at + ttft + (n - 1) * gap,
    req: { stream: true },
    sse: { events: n + 1, tokens: n, badEvents: 0, done: true, afterDone: 0 },
    output,
  });
}

// A: 11 deltas, no usage: counted in chunks. TTFT 200, e2e 400, TPOT (400 − 200)/10 = 20.
// B: 11 deltas carrying 21 tokens (usage): TTFT 300, e2e 500, TPOT (500 − 300)/20 = 10.
// C: an /openai stream answered 500: judged for goodput, no output.
const openai: JobstormRecord[] = [
  openaiStream(1, 0, 200, 11, 20),
  openaiStream(2, 100, 300, 11, 20, 21),
  exchange(3, { intendedAt: 200, sentAt: 200, endAt: 210, status: 500, req: { stream: true } }),
];

/** A job submitted at 1000, read through /stream three times (vLLM chunks with usage), COMPLETED. */
const streamJob: JobstormRecord[] = [
  exchange(10, {
    op: 'run',
    path: '/run',
    intendedAt: 1000,
    sentAt: 1000,
    endAt: 1010,
    jobId: 'j1',
    body: { id: 'j1', status: 'IN_QUEUE' },
  }),
  exchange(11, {
    op: 'stream',
    method: 'GET',
    path: '/stream/j1',
    sentAt: 1490,
    endAt: 1500,
    jobId: 'j1',
    body: { status: 'IN_PROGRESS', stream: [{ output: {} }] },
    output: { unit: 'tokens', arrivals: [[1500, 1]], usageTokens: 1 },
  }),
  exchange(12, {
    op: 'stream',
    method: 'GET',
    path: '/stream/j1',
    sentAt: 1590,
    endAt: 1600,
    jobId: 'j1',
    body: { status: 'IN_PROGRESS', stream: [{ output: {} }, { output: {} }] },
    output: { unit: 'tokens', arrivals: [[1600, 4]], usageTokens: 5 },
  }),
  exchange(13, {
    op: 'stream',
    method: 'GET',
    path: '/stream/j1',
    sentAt: 1690,
    endAt: 1700,
    jobId: 'j1',
    body: { status: 'COMPLETED', delayTime: 300, executionTime: 400, stream: [{ output: {} }] },
    output: { unit: 'tokens', arrivals: [[1700, 6]], usageTokens: 11 },
  }),
];

function summaryOf(
  rs: readonly JobstormRecord[],
  llm?: TokenSettings,
  shard?: string,
): ReturnType<typeof buildSummary> {
  const r0: RunRecord = shard === undefined ? run : { ...run, shard };
  const m = new FoldedMetrics(llm === undefined ? {} : { llm });
  m.add(r0);
  for (const r of rs) m.add(r);
  return buildSummary({ metrics: m, run: r0, durationMs: 2000 });
}

const objectives: TokenSettings = { definition: 'jobstorm', objectives: { ttftMs: 250 } };

describe('streamed token metrics', () => {
  it('keep answers counted in tokens apart from those counted in chunks, each with its TTFT, TPOT and ITL', () => {
    const t = summaryOf(openai).tokens;
    const chunks = t?.groups.find((g) => g.counted === 'chunks');
    const tokens = t?.groups.find((g) => g.counted === 'tokens');
    expect(chunks).toMatchObject({ path: 'openai', answers: 1, outputTokens: 11 });
    expect(chunks?.ttft.percentiles.max).toBeCloseTo(200, 0);
    expect(chunks?.tpot.percentiles.max).toBeCloseTo(20, 0);
    expect(chunks?.itl.percentiles).toMatchObject({ count: 10 });
    expect(chunks?.itl.percentiles.max).toBeCloseTo(20, 0);
    expect(tokens).toMatchObject({ path: 'openai', answers: 1, outputTokens: 21 });
    expect(tokens?.ttft.percentiles.max).toBeCloseTo(300, 0);
    expect(tokens?.tpot.percentiles.max).toBeCloseTo(10, 0);
    // 21 tokens over 10 gaps of 20 ms after the first: each later arrival carried 21/11 tokens.
    expect(tokens?.itl.percentiles.max).toBeCloseTo((20 * 11) / 21, 1);
    // 21 tokens over the 2 s measured: 10.5 per second.
    expect(tokens?.throughput).toBeCloseTo(10.5, 5);
  });

  it('time a job read through /stream from its submission, TTFT split into the queue wait and the rest', () => {
    const g = summaryOf(streamJob).tokens?.groups[0];
    expect(g).toMatchObject({ path: 'stream', counted: 'tokens', answers: 1, outputTokens: 11 });
    // Submitted at 1000, first token read at 1500, last at 1700.
    expect(g?.ttft.percentiles.max).toBeCloseTo(500, 0);
    expect(g?.e2e.percentiles.max).toBeCloseTo(700, 0);
    expect(g?.tpot.percentiles.max).toBeCloseTo(20, 0);
    expect(g?.queue?.percentiles.max).toBeCloseTo(300, 0);
    expect(g?.toFirstAfterQueue?.percentiles.max).toBeCloseTo(200, 0);
    // jobstorm's ITL: 100 ms over 4 tokens, then 100 ms over 6.
    expect(g?.itl.percentiles).toMatchObject({ count: 10 });
    expect(g?.itl.percentiles.max).toBeCloseTo(25, 0);
    expect(g?.itl.percentiles.min).toBeCloseTo(16.67, 0);
  });

  it('follow the definition asked for: vLLM pools the chunk gaps', () => {
    const g = summaryOf(streamJob, { definition: 'vllm', objectives: {} }).tokens;
    expect(g?.definition).toBe('vllm');
    expect(g?.groups[0]?.itl.percentiles).toMatchObject({ count: 2 });
    expect(g?.groups[0]?.itl.percentiles.max).toBeCloseTo(100, 0);
  });

  it('count goodput by hand: every streamed request is judged, those that met every objective are good', () => {
    const g = summaryOf([...openai, ...streamJob], objectives).tokens?.goodput;
    // Judged: A, B, C and the job. Good: only A (TTFT 200 ≤ 250); B 300, the job 500, C failed.
    expect(g).toEqual({ judged: 4, good: 1, share: 0.25, perSecond: 0.5 });
  });

  it('are absent from runs that streamed nothing, so other reports stay as they were', () => {
    expect(summaryOf([]).tokens).toBeUndefined();
  });

  it('merge exactly: two shards give the figures of one, and survive summary.json', () => {
    const all = [...openai, ...streamJob];
    const whole = summaryOf(all, objectives);
    const merged = mergeSummaries([
      summaryOf(openai, objectives, '1/2'),
      summaryOf(streamJob, objectives, '2/2'),
    ]);
    expect(merged.tokens?.groups).toEqual(
      whole.tokens?.groups.map((g) => ({
        ...g,
        throughput: merged.tokens?.groups.find((x) => x.path === g.path && x.counted === g.counted)
          ?.throughput,
      })),
    );
    expect(merged.tokens?.goodput.good).toBe(1);
    expect(merged.tokens?.goodput.judged).toBe(4);
    const back = parseSummary(JSON.parse(JSON.stringify(whole)), 'summary.json');
    expect(back.tokens).toEqual(whole.tokens);
  });

  it('show in the HTML, terminal and Markdown reports, with whose formulas and the goodput', () => {
    const s = summaryOf([...openai, ...streamJob], objectives);
    for (const text of [htmlReporter.render(s), terminalReporter.render(s), markdownReporter.render(s)]) {
      expect(text).toContain('Goodput (TTFT ≤ 250ms): 1 of 4 requests (25.0%)');
      expect(text).toContain('by the jobstorm definition');
      expect(text).toContain('/run + /stream (tokens) TTFT');
      expect(text).toContain('queue wait (delayTime)');
      // No /health samples in these records: the cold start inside the wait is not measured, and says so.
      expect(text).toContain('Cold start within the queue wait: not measured');
      expect(text).toContain('/openai (chunks) ITL');
      // The token section leads: before the operations table.
      expect(text.indexOf('/openai (chunks) TTFT')).toBeLessThan(text.search(/Operations|operation +count/));
    }
    // TTFT through the queue, decomposed: each percentile's queue wait and the rest, stacked.
    const html = htmlReporter.render(s);
    expect(html).toContain('<h3>TTFT through the queue</h3>');
    expect(html).toMatch(
      /<title>queue wait \(delayTime\) 300ms \+ queue → first token 200ms \(TTFT p50 500ms\)<\/title>/,
    );
  });

  it("split each job's queue wait into its cold start and the rest by the /health samples", () => {
    // Workers initializing at 900 ms, one idle at 1200: the 900 sample speaks up to 1050, so of the
    // job's wait from its send (1000) to 1300, 50 ms was cold start and 250 ms warm.
    const s = summaryOf([health(5, 900, 1), ...streamJob.slice(0, 1), health(6, 1200, 0), ...streamJob.slice(1)]);
    const g = s.tokens?.groups[0];
    expect(g?.queue?.percentiles.max).toBeCloseTo(300, 0);
    expect(g?.queueCold?.percentiles.max).toBeCloseTo(50, 0);
    expect(g?.queueWarm?.percentiles.max).toBeCloseTo(250, 0);
    const html = htmlReporter.render(s);
    expect(html).toMatch(
      /<title>queue wait, warm 250ms \+ queue wait, cold start 50.0ms \+ queue → first token 200ms \(TTFT p50 500ms\)<\/title>/,
    );
    for (const text of [html, terminalReporter.render(s), markdownReporter.render(s)]) {
      expect(text).toContain('of it, cold start');
      expect(text).toContain('The queue wait of each job is split by the /health samples');
    }
    // Past the newest sample, the newest one speaks: still initializing there, all 300 ms are cold.
    const cold = summaryOf([health(5, 900, 1), ...streamJob]).tokens?.groups[0];
    expect(cold?.queueCold?.percentiles.max).toBeCloseTo(300, 0);
    expect(cold?.queueWarm?.percentiles.max).toBe(0);
    // A /health without workers.initializing cannot tell: no split, the wait stays whole.
    const blind = summaryOf([health(5, 900, undefined), ...streamJob]).tokens?.groups[0];
    expect(blind?.queue?.percentiles.max).toBeCloseTo(300, 0);
    expect(blind?.queueCold).toBeUndefined();
    // Shards merge the split exactly, and summary.json keeps it.
    const back = parseSummary(JSON.parse(JSON.stringify(s)), 'summary.json');
    expect(back.tokens?.groups[0]?.queueCold).toEqual(g?.queueCold);
  });
});

/** A /health answer at `at` ms with `initializing` workers (none idle then) or one idle worker. */
function health(seq: number, at: number, initializing: number | undefined): ExchangeRecord {
  const workers =
    initializing === undefined
      ? { idle: 0, running: 0 }
      : initializing > 0
        ? { idle: 0, running: 0, initializing }
        : { idle: 1, running: 0, initializing: 0 };
  return exchange(seq, {
    op: 'health',
    method: 'GET',
    path: '/health',
    intendedAt: at,
    sentAt: at,
    endAt: at,
    body: { jobs: { inQueue: 1, inProgress: 0, completed: 0, failed: 0, retried: 0 }, workers },
  });
}

describe('thresholds on streamed answers', () => {
  const s = summaryOf([...openai, ...streamJob], objectives);
  const judge = (expr: string): ReturnType<typeof evaluateThresholds>[number] | undefined =>
    evaluateThresholds(parseThresholds([expr]), s)[0];

  it('read TTFT, ITL and TPOT of the path named, and output tokens per second', () => {
    expect(judge('p99(ttft{path=stream}) < 600ms')).toMatchObject({ ok: true });
    expect(judge('p99(ttft{path=stream}) < 400ms')).toMatchObject({ ok: false });
    expect(judge('max(tpot{path=stream}) <= 20ms')?.value).toBeCloseTo(20, 0);
    expect(judge('p50(itl{path=stream}) < 30ms')).toMatchObject({ ok: true });
    // The job's 11 tokens over the 2 s measured.
    expect(judge('rps(outputTokens{path=stream}) > 5')?.value).toBeCloseTo(5.5, 5);
  });

  it('never merge answers counted in tokens with answers counted in chunks: not evaluated, and why', () => {
    const r = judge('p99(ttft) < 10s');
    expect(r).toMatchObject({ ok: false, value: null });
    expect(r?.notEvaluated).toMatch(/mixes answers counted in tokens with answers counted in chunks/);
  });

  it('judge goodput as the share of streamed requests, per second, or a count', () => {
    expect(judge('rate(goodput) >= 25%')).toMatchObject({ ok: true, value: 0.25 });
    expect(judge('rate(goodput) >= 50%')).toMatchObject({ ok: false });
    expect(judge('rps(goodput) >= 0.5')).toMatchObject({ ok: true, value: 0.5 });
    expect(judge('count(goodput) == 1')).toMatchObject({ ok: true });
  });

  it('fail, not evaluated, on a run that streamed nothing or set no objectives', () => {
    const none = evaluateThresholds(parseThresholds(['rate(goodput) > 0']), summaryOf([]))[0];
    expect(none).toMatchObject({ ok: false, value: null });
    expect(none?.notEvaluated).toMatch(/streamed no LLM answer|no streamed request/);
    const noObjectives = evaluateThresholds(parseThresholds(['rate(goodput) > 0']), summaryOf(openai))[0];
    expect(noObjectives?.notEvaluated).toMatch(/set llm.objectives/);
  });

  it('are whole-run figures: a window over them is refused with the reason', () => {
    expect(() => parseThresholds(['rate(goodput) > 50% over 5s'])).toThrow(
      /token figure goodput is a whole-run figure/,
    );
  });
});
