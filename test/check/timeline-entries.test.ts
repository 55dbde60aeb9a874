import { describe, expect, it } from 'vitest';
import { appendEntry, EMPTY_TIMELINE, entriesOf, observationsIn } from '../../src/check/job-timeline.js';
import type { TimelineEntry } from '../../src/core/violation.js';

/* A packed timeline: appending never changes a short timeline given, and entries come back whole. */

describe('appendEntry', () => {
  it('makes the first entry of an empty timeline, and leaves the shared empty one empty', () => {
    const t = appendEntry(EMPTY_TIMELINE, 5, 'run', 'IN_QUEUE');
    expect(entriesOf(t)).toStrictEqual([{ at: 5, op: 'run', status: 'IN_QUEUE' }]);
    expect(EMPTY_TIMELINE).toHaveLength(0);
    expect(entriesOf(appendEntry([], 6, 'cancel'))).toStrictEqual([{ at: 6, op: 'cancel' }]);
  });

  it('gives a new array for a short timeline, leaving the one given as it was', () => {
    const one = appendEntry([], 1, 'run', 'IN_QUEUE');
    const two = appendEntry(one, 2, 'status', 'IN_PROGRESS');
    expect(one).toHaveLength(2);
    expect(entriesOf(two).map((e) => e.at)).toEqual([1, 2]);
  });

  it('refuses an operation it has no code for', () => {
    expect(() => appendEntry([], 1, 'no-such-op' as TimelineEntry['op'])).toThrow(
      /no code for operation no-such-op/,
    );
  });

  it('reads back our actions as the transition table sees them', () => {
    let t = appendEntry([], 1, 'run', 'IN_QUEUE');
    for (const op of ['cancel', 'retry', 'purge-queue'] as const) t = appendEntry(t, 2, op);
    expect(observationsIn(t)).toEqual([
      { kind: 'status', status: 'IN_QUEUE' },
      { kind: 'action', action: 'cancel' },
      { kind: 'action', action: 'retry' },
      { kind: 'action', action: 'purge' },
    ]);
  });
});
