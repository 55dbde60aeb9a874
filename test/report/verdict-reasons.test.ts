import { describe, expect, it } from 'vitest';
import type { Summary } from '../../src/report/summary.js';
import { coverageLine, generatorLimitedSeconds, judgeVerdict } from '../../src/report/verdict.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';

/*
 * The verdict from one field of a summary at a time (issue 39: survivors of the mutation run in
 * src/report/verdict.ts): each way a run ends, each reason a run fails or proves nothing, and the
 * words that say so.
 */
type Ops = Summary['operations'];
type Op = Ops[string];

function op(byStatus: Record<string, number>): Op {
  const base = fixtureSummary().operations.status;
  if (!base) throw new Error('the fixture has status requests');
  const requests = Object.values(byStatus).reduce((n, c) => n + c, 0);
  const count = (pred: (code: string) => boolean): number =>
    Object.entries(byStatus).reduce((n, [code, c]) => n + (pred(code) ? c : 0), 0);
  return {
    ...base,
    requests,
    byStatus,
    countErrors: count((c) => c === 'error'),
    count429: count((c) => c === '429'),
    count4xx: count((c) => c.startsWith('4') && c !== '429'),
  };
}

/** A run that passes: jobs accepted, followed and finished, no violation, no threshold. */
function clean(): Summary {
  const s = fixtureSummary();
  return {
    ...s,
    run: { ...s.run, end: 'completed' },
    operations: { run: op({ 200: 10 }), status: op({ 200: 30 }) },
    violations: [],
    thresholds: [],
    errors: {},
    stalls: [],
    generatorLimited: undefined,
    checks: ['transition', 'schema'],
    coverage: { 'transition.backwards': 30, 'schema.run': 10, 'stream.after-final': 0 },
  };
}

const violation = (
  id: string,
  count: number,
  severity: 'error' | 'warning' = 'error',
): Summary['violations'][number] => ({
  id,
  count,
  severity,
  examples: [],
});
const threshold = (expression: string, ok: boolean, value: number | null): Summary['thresholds'][number] => ({
  expression,
  ok,
  value,
  unit: 'ms',
});

describe('a run that passes', () => {
  it('says how many checks were exercised', () => {
    expect(judgeVerdict(clean())).toEqual({
      status: 'passed',
      reasons: ['no violations; 2 of 3 checks exercised; every threshold held'],
    });
    expect(coverageLine(clean().coverage)).toBe('2 of 3 checks exercised');
  });

  it('warnings do not fail it', () => {
    expect(
      judgeVerdict({ ...clean(), violations: [violation('webhook.missing', 4, 'warning')] }).status,
    ).toBe('passed');
  });
});

describe('a run that fails', () => {
  it('counts the error findings and names them', () => {
    const v = judgeVerdict({
      ...clean(),
      violations: [violation('a.one', 1), violation('b.two', 2), violation('c.warn', 5, 'warning')],
    });
    expect(v).toEqual({ status: 'failed', reasons: ['3 violations: a.one ×1, b.two ×2'] });
  });

  it('names the thresholds that failed, one or several; one without samples is no failure', () => {
    const one = judgeVerdict({ ...clean(), thresholds: [threshold('p99(run) < 1s', false, 1200)] });
    expect(one.reasons).toEqual(['threshold failed: p99(run) < 1s']);
    const two = judgeVerdict({
      ...clean(),
      thresholds: [
        threshold('p99(run) < 1s', false, 1200),
        threshold('p50(run) < 1s', true, 20),
        threshold('p90(run) < 5ms', false, 9),
      ],
    });
    expect(two).toEqual({ status: 'failed', reasons: ['thresholds failed: p99(run) < 1s; p90(run) < 5ms'] });
  });

  it('failures first, then what went unjudged', () => {
    const v = judgeVerdict({
      ...clean(),
      violations: [violation('a.one', 1)],
      thresholds: [threshold('p99(cancel) < 1s', false, null)],
    });
    expect(v).toEqual({
      status: 'failed',
      reasons: ['1 violations: a.one ×1', 'no samples for threshold "p99(cancel) < 1s": not a pass'],
    });
  });
});

describe('how a run ended', () => {
  const failing = {
    violations: [violation('a.one', 1)],
    thresholds: [threshold('p99(x) < 1s', false, null)],
  };

  it('interrupted, its output lost, or a shard failed: interrupted, with every other reason after', () => {
    const ended = (end: Summary['run']['end'], failure?: string): Summary => ({
      ...clean(),
      ...failing,
      run: { ...clean().run, end, ...(failure === undefined ? {} : { failure }) },
    });
    const rest = ['1 violations: a.one ×1', 'no samples for threshold "p99(x) < 1s": not a pass'];
    expect(judgeVerdict(ended('interrupted'))).toEqual({
      status: 'interrupted',
      reasons: ['the run was interrupted: results are partial', ...rest],
    });
    expect(judgeVerdict(ended('output-failed')).reasons[0]).toBe(
      'the run stopped because its output could not be written: results are partial',
    );
    expect(judgeVerdict(ended('shard-failed')).reasons[0]).toBe(
      'a worker thread failed, so the others were stopped: results are partial',
    );
    expect(judgeVerdict(ended('shard-failed', 'out of memory')).reasons[0]).toBe(
      'a worker thread failed (out of memory), so the others were stopped: results are partial',
    );
  });

  it('aborted by a threshold: failed, saying which and when', () => {
    const aborted: Summary = {
      ...clean(),
      ...failing,
      run: { ...clean().run, end: 'aborted', aborted: { threshold: 'p99(run) < 1s', at: 12 } },
    };
    expect(judgeVerdict(aborted)).toEqual({
      status: 'failed',
      reasons: [
        'aborted: p99(run) < 1s at t+12s',
        '1 violations: a.one ×1',
        'no samples for threshold "p99(x) < 1s": not a pass',
      ],
    });
    const unsaid: Summary = { ...aborted, run: { ...aborted.run, aborted: undefined } };
    expect(judgeVerdict(unsaid).reasons[0]).toBe('aborted: a threshold failed');
  });

  it('unreachable: what failed is said, what went unjudged is not', () => {
    const v = judgeVerdict({ ...clean(), ...failing, run: { ...clean().run, end: 'unreachable' } });
    expect(v).toEqual({
      status: 'unreachable',
      reasons: ['no request got an answer from the target', '1 violations: a.one ×1'],
    });
  });
});

describe('a run that proves nothing: inconclusive', () => {
  it('no job accepted, naming the codes; a refused key says so', () => {
    const v = judgeVerdict({ ...clean(), operations: { run: op({ 401: 7, 429: 2, 500: 1 }) } });
    expect(v.status).toBe('inconclusive');
    expect(v.reasons).toContain(
      'no job was accepted: 10 submits, none answered 2xx (401 ×7, 429 ×2, 500 ×1): the key was refused',
    );
  });

  it('every answer a 4xx, the commonest codes first, three at most; a 404 points at the URL', () => {
    const v = judgeVerdict({
      ...clean(),
      operations: { run: op({ 200: 2 }), status: op({ 404: 9, 400: 1, 429: 3, 403: 2 }) },
    });
    // The run's 200s are answers too: not every answer is a 4xx.
    expect(v.status).toBe('passed');
    const all4xx = judgeVerdict({
      ...clean(),
      operations: { status: op({ 404: 9, 400: 1, 429: 3, 403: 2 }) },
    });
    expect(all4xx).toEqual({
      status: 'inconclusive',
      reasons: ['every answer was a 4xx (404 ×9, 429 ×3, 403 ×2): wrong endpoint id or base URL?'],
    });
    const noHint = judgeVerdict({ ...clean(), operations: { status: op({ 400: 3, error: 1 }) } });
    expect(noHint.reasons).toEqual(['every answer was a 4xx (400 ×3, error ×1)']);
  });

  it('no request sent; no check judged anything', () => {
    expect(judgeVerdict({ ...clean(), operations: {} }).reasons).toContain('no request was sent');
    const unjudged = judgeVerdict({ ...clean(), coverage: { 'transition.backwards': 0, 'schema.run': 0 } });
    expect(unjudged).toEqual({ status: 'inconclusive', reasons: ['no check judged anything'] });
    // No checks ran at all (none asked for): not this reason.
    expect(judgeVerdict({ ...clean(), checks: [], coverage: {} }).status).toBe('passed');
  });

  it('several thresholds without samples are named together', () => {
    const v = judgeVerdict({
      ...clean(),
      thresholds: [threshold('p99(cancel) < 1s', false, null), threshold('p99(retry) < 1s', false, null)],
    });
    expect(v.reasons).toEqual([
      'no samples for thresholds "p99(cancel) < 1s", "p99(retry) < 1s": not a pass',
    ]);
  });
});

describe('a generator-limited run', () => {
  const stretch = (
    at: number,
    durationMs: number,
    cpuShare?: number,
  ): NonNullable<Summary['generatorLimited']>[number] => ({
    at,
    durationMs,
    busy: 0.99,
    loopDelayP99Ms: 40,
    latenessP99Ms: 55,
    ...(cpuShare === undefined ? {} : { cpuShare }),
  });

  it('adds how long and from when, and advises more workers when jobstorm had its CPU', () => {
    const v = judgeVerdict({ ...clean(), generatorLimited: [stretch(2600, 3000), stretch(9000, 1500)] });
    expect(generatorLimitedSeconds({ generatorLimited: [stretch(2600, 3000), stretch(9000, 1500)] })).toBe(
      4.5,
    );
    expect(v.status).toBe('passed');
    expect(v.generatorLimited).toBe(true);
    expect(v.reasons[1]).toBe(
      "generator-limited: jobstorm itself was the bottleneck for 5 s of the run (from t+3s); latencies then include its own queueing, not only the target's: run again with --workers 2 (or more), or at a lower rate",
    );
  });

  it('advises more CPU when it was starved of CPU for more than half of that time', () => {
    const starved = judgeVerdict({
      ...clean(),
      generatorLimited: [stretch(0, 3000, 0.2), stretch(5000, 2000, 0.9)],
    });
    expect(starved.reasons[1]).toMatch(/did not get the CPU it needed/);
    const half = judgeVerdict({
      ...clean(),
      generatorLimited: [stretch(0, 2000, 0.2), stretch(5000, 2000, 0.9)],
    });
    expect(half.reasons[1]).toMatch(/run again with --workers 2/);
  });

  it('a run never limited says nothing of it', () => {
    expect(judgeVerdict({ ...clean(), generatorLimited: [] })).not.toHaveProperty('generatorLimited');
    expect(generatorLimitedSeconds({})).toBe(0);
  });
});

describe('edges of the reasons', () => {
  it('requests without a usable answer: by kind, commonest first, none of zero, none of our own cuts', () => {
    const v = judgeVerdict({
      ...clean(),
      operations: { run: op({ 200: 10 }), status: op({ 200: 990 }) },
      errors: { reset: 0, refused: 5, timeout: 20, aborted: 400 },
    });
    expect(v.status).toBe('failed');
    expect(v.reasons[0]).toMatch(
      /^the target left 25 of 1000 requests \(2\.5%\) without a usable answer \(timeout 20, refused 5\);/,
    );
  });

  it('errors with no request counted say nothing of a share; an unreadable stored threshold bounds nothing', () => {
    expect(judgeVerdict({ ...clean(), operations: {}, errors: { refused: 3 } }).reasons).toEqual([
      'no request was sent',
    ]);
    const v = judgeVerdict({
      ...clean(),
      operations: { run: op({ 200: 10 }), status: op({ 200: 990 }) },
      errors: { refused: 25 },
      thresholds: [threshold('errors below a few', true, 1)],
    });
    expect(v.reasons[0]).toMatch(/^the target left 25 of 1000 requests/);
  });

  it('answers that were all transport errors are neither all 4xx nor no request', () => {
    expect(judgeVerdict({ ...clean(), operations: { status: op({ error: 5 }) } })).toEqual(
      judgeVerdict(clean()),
    );
  });

  it('"no check judged anything" needs checks that ran and ids to judge', () => {
    expect(judgeVerdict({ ...clean(), checks: [], coverage: { 'schema.run': 0 } }).status).toBe('passed');
    expect(judgeVerdict({ ...clean(), checks: ['schema'], coverage: {} }).status).toBe('passed');
  });

  it('jobs never finished count as unfollowed unless a follow-up was answered 2xx', () => {
    const stuck = (byStatus: Record<string, number>): string[] =>
      judgeVerdict({
        ...clean(),
        operations: { run: op({ 200: 5 }), status: op(byStatus) },
        jobs: {
          ...clean().jobs,
          submitted: 5,
          lost: 0,
          byState: { COMPLETED: 0, FAILED: 0, CANCELLED: 0, TIMED_OUT: 0 },
        },
      }).reasons;
    expect(stuck({ 200: 0, 404: 3 }).join(' ')).not.toMatch(/no job finished/);
    expect(stuck({ 200: 3 }).join(' ')).toMatch(/^no job finished: 5 accepted and followed/);
  });
});
