import { describe, expect, it } from 'vitest';
import { judgeObservedSequence, TRANSITIONS, type Observation } from '../../contracts/queue/states.js';
import type { JobStatus } from '../../src/core/job-status.js';

const s = (status: JobStatus): Observation => ({ kind: 'status', status });
const a = (action: 'cancel' | 'retry' | 'purge'): Observation => ({ kind: 'action', action });

describe('transition table', () => {
  it('encodes every row of SPEC "States and transitions" with a citation', () => {
    const rows = TRANSITIONS.map((t) => `${t.from} -${t.by}-> ${t.to}`);
    expect(rows).toEqual(
      expect.arrayContaining([
        'none -run-> IN_QUEUE',
        'none -runsync-> COMPLETED',
        'IN_QUEUE -cancel-> CANCELLED',
        'IN_PROGRESS -cancel-> CANCELLED',
        'FAILED -retry-> IN_QUEUE',
        'TIMED_OUT -retry-> IN_QUEUE',
        'any -ttl-expiry-> deleted',
        'any-final -retention-expiry-> results-gone',
      ]),
    );
    for (const t of TRANSITIONS) expect(t.cite).toMatch(/SPEC|DESIGN|real-service/);
  });
});

describe('judgeObservedSequence', () => {
  it.each<[string, Observation[]]>([
    ['the full walk', [s('IN_QUEUE'), s('IN_PROGRESS'), s('COMPLETED')]],
    ['a poll that missed IN_PROGRESS', [s('IN_QUEUE'), s('COMPLETED')]],
    ['a first poll that already sees the end', [s('FAILED')]],
    [
      'repeated observations',
      [s('IN_QUEUE'), s('IN_QUEUE'), s('IN_PROGRESS'), s('IN_PROGRESS'), s('TIMED_OUT'), s('TIMED_OUT')],
    ],
    ['cancel of a queued job', [s('IN_QUEUE'), a('cancel'), s('CANCELLED')]],
    ['cancel racing completion', [s('IN_PROGRESS'), a('cancel'), s('COMPLETED')]],
    ['purge of a queued job', [s('IN_QUEUE'), a('purge'), s('CANCELLED')]],
    [
      'retry after FAILED',
      [s('IN_QUEUE'), s('FAILED'), a('retry'), s('IN_QUEUE'), s('IN_PROGRESS'), s('COMPLETED')],
    ],
    ['retry after TIMED_OUT', [s('IN_PROGRESS'), s('TIMED_OUT'), a('retry'), s('IN_PROGRESS'), s('FAILED')]],
    ['retry when the failure was not seen yet', [s('IN_PROGRESS'), a('retry'), s('IN_QUEUE')]],
    ['empty', []],
  ])('legal: %s', (_name, seq) => {
    expect(judgeObservedSequence(seq)).toEqual({ ok: true });
  });

  it.each<[string, Observation[], number, string]>([
    ['back from IN_PROGRESS to IN_QUEUE', [s('IN_QUEUE'), s('IN_PROGRESS'), s('IN_QUEUE')], 2, 'backwards'],
    ['COMPLETED then IN_PROGRESS', [s('IN_PROGRESS'), s('COMPLETED'), s('IN_PROGRESS')], 2, 'left-final'],
    ['COMPLETED then FAILED', [s('COMPLETED'), s('FAILED')], 1, 'left-final'],
    [
      'cancelled job later COMPLETED',
      [s('IN_PROGRESS'), a('cancel'), s('CANCELLED'), s('COMPLETED')],
      3,
      'left-final',
    ],
    ['FAILED then IN_QUEUE with no retry of ours', [s('FAILED'), s('IN_QUEUE')], 1, 'left-final'],
    ['retry of a COMPLETED job accepted', [s('COMPLETED'), a('retry')], 1, 'retry-not-allowed'],
    [
      'retry of a CANCELLED job accepted',
      [s('IN_QUEUE'), a('cancel'), s('CANCELLED'), a('retry')],
      3,
      'retry-not-allowed',
    ],
    ['CANCELLED without our cancel or purge', [s('IN_QUEUE'), s('CANCELLED')], 1, 'cancelled-unprompted'],
    [
      'after a retry the job still may not go back',
      [s('FAILED'), a('retry'), s('IN_PROGRESS'), s('IN_QUEUE')],
      3,
      'backwards',
    ],
  ])('illegal: %s', (_name, seq, index, fault) => {
    const verdict = judgeObservedSequence(seq);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) {
      expect(verdict.index).toBe(index);
      expect(verdict.fault).toBe(fault);
      expect(verdict.message.length).toBeGreaterThan(10);
    }
  });
});
