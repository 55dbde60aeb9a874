import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import type { TokensSummary } from '../../src/report/summary.js';
import { captureIo } from '../helpers/cli-io.js';
import { runCliOnClock } from '../helpers/cli-on-clock.js';

/*
 * Issue 48: scenarios/llm-stream.yaml against the embedded emulator, whose workers stream like a
 * model (profile llm: 0.5 ms of prefill per prompt token, 10 ms per output token, decode 5 % slower
 * for each other job on the worker, up to 8 at once). On a manual clock, so the model's times are
 * exact and a loaded machine reads the same figures as an idle one. What the settings imply:
 * - /openai TTFT = prefill = 0.5 ms × the prompt's words (normal, mean 300, sd 60): p50 ≈ 150 ms;
 * - /stream TTFT = the same, plus the queue wait and at most one 50 ms /stream interval;
 * - TPOT = decode = 10 ms × (1 + 0.05 × (jobs on the worker − 1)): from 10 to 13.5 ms;
 * - goodput (TTFT ≤ 1 s, TPOT ≤ 50 ms, e2e ≤ 10 s): every request, as a hand count over the
 *   records finds.
 */

interface Ran {
  verdict: { status: string };
  tokens: TokensSummary;
  warmup?: { ms: number };
}

function records(text: string): JobstormRecord[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as JobstormRecord);
}

/** Goodput counted by hand from the records, with none of jobstorm's metrics code. */
function goodputByHand(rs: readonly JobstormRecord[], warmupMs: number): { judged: number; good: number } {
  const ex = rs.filter((r): r is ExchangeRecord => r.type === 'exchange');
  const meets = (ttft: number, e2e: number, tokens: number): boolean =>
    ttft <= 1000 && e2e <= 10_000 && (tokens < 2 || (e2e - ttft) / (tokens - 1) <= 50);
  let judged = 0;
  let good = 0;
  for (const r of ex.filter((x) => x.op === 'openai' && x.intendedAt >= warmupMs)) {
    judged++;
    const first = r.output?.arrivals[0]?.[0];
    const tokens = r.output?.usageTokens ?? 0;
    if (r.status === 200 && first !== undefined && meets(first - r.sentAt, r.endAt - r.sentAt, tokens))
      good++;
  }
  for (const submit of ex.filter((x) => x.op === 'run' && x.intendedAt >= warmupMs)) {
    const reads = ex.filter((x) => x.op === 'stream' && x.jobId === submit.jobId && x.output !== undefined);
    const done = ex.some(
      (x) =>
        x.op === 'stream' &&
        x.jobId === submit.jobId &&
        (x.body as { status?: string }).status === 'COMPLETED',
    );
    if (!done) continue;
    judged++;
    const first = reads[0]?.endAt;
    const last = reads.at(-1);
    if (first === undefined || last === undefined) continue;
    if (meets(first - submit.sentAt, last.endAt - submit.sentAt, last.output?.usageTokens ?? 0)) good++;
  }
  return { judged, good };
}

describe('scenarios/llm-stream.yaml against the model-like emulator', () => {
  it('passes, with the TTFT, TPOT and goodput its settings imply, and goodput equal to a hand count', async () => {
    const out = await mkdtemp(join(tmpdir(), 'jobstorm-llm-stream-'));
    const io = captureIo();
    // Half the scenario's rate: still dozens of answers of each path, at half the CPU. The clock
    // driver may take its time on a busy machine (thousands of token events); the test's own
    // timeout bounds it.
    const code = await runCliOnClock(
      ['run', 'scenarios/llm-stream.yaml', '--out', out, '--record', '--rate-scale', '0.5'],
      io,
      { driver: { maxRealMs: 110_000 } },
    );
    const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as Ran;
    expect(code, io.stderr.join('\n')).toBe(0);
    expect(summary.verdict.status).toBe('passed');
    const t = summary.tokens;
    const openai = t.groups.find((g) => g.path === 'openai');
    const stream = t.groups.find((g) => g.path === 'stream');
    // Counted by the server's usage (/openai: include_usage) and token lists (/stream): tokens.
    expect(openai?.counted).toBe('tokens');
    expect(stream?.counted).toBe('tokens');
    expect(openai?.ttft.percentiles.p50).toBeGreaterThan(130);
    expect(openai?.ttft.percentiles.p50).toBeLessThan(170);
    // Each token's time is rounded to the millisecond: TPOT over an /openai stream is decode ± 0.1 ms.
    expect(openai?.tpot.percentiles.min).toBeGreaterThanOrEqual(9.9);
    expect(openai?.tpot.percentiles.max).toBeLessThanOrEqual(13.6);
    // Through /stream the first and last tokens are seen at reads 50 ms apart: TPOT is decode
    // ± 50 ms spread over the answer's tokens (lognormal, mean 120: rarely under 40).
    expect(stream?.tpot.percentiles.p50).toBeGreaterThanOrEqual(9.5);
    expect(stream?.tpot.percentiles.p50).toBeLessThanOrEqual(14);
    // Through the queue: the same prefill, the wait, and at most one read interval.
    const queued = stream?.ttft.percentiles.p50 ?? 0;
    expect(queued).toBeGreaterThan(130);
    expect(queued - (stream?.queue?.percentiles.p50 ?? 0)).toBeLessThan(170 + 50);
    const byHand = goodputByHand(
      records(await readFile(join(out, 'records.ndjson'), 'utf8')),
      summary.warmup?.ms ?? 0,
    );
    expect(byHand.judged).toBeGreaterThan(25);
    expect(t.goodput).toMatchObject(byHand);
    expect(t.goodput.share).toBe(1);
  }, 120_000);
});
