import { describe, expect, it } from 'vitest';
import type { Violation } from '../../src/core/violation.js';
import { deviationLines, deviationMarkdown, deviationText } from '../../src/report/deviation-lines.js';
import type { ViolationSummary } from '../../src/report/summary.js';

const example = (op: Violation['op'], message: string, seq: number): Violation => ({
  id: 'x',
  severity: 'error',
  at: 0,
  op,
  message,
  evidence: { seq, request: `GET /${String(op)}/j`, status: 405 },
});

const violations: ViolationSummary[] = [
  {
    id: 'request.method',
    severity: 'error',
    count: 2,
    examples: [
      example('status', 'this target does not take GET for status; jobstorm sends status with POST', 4),
      example('stream', 'this target does not take GET for stream; jobstorm stops sending stream', 9),
    ],
  },
  {
    id: 'lifecycle.lost',
    severity: 'error',
    count: 7,
    examples: [example('cancel', 'POST cancel answered 404 for job j', 12), example('cancel', 'later', 30)],
  },
  { id: 'ratelimit.early', severity: 'warning', count: 1, examples: [example('run', 'early 429', 40)] },
];

describe('the deviations a report leads with', () => {
  it('one line per deviation (per operation for request.method), each with its first record', () => {
    expect(deviationLines({ violations })).toEqual([
      'request.method (status): this target does not take GET for status — record 4: GET /status/j → 405',
      'request.method (stream): this target does not take GET for stream — record 9: GET /stream/j → 405',
      'lifecycle.lost (cancel): POST cancel answered 404 for job j — record 12: GET /cancel/j → 405',
      'ratelimit.early (run) [warning]: early 429 — record 40: GET /run/j → 405',
    ]);
  });

  it('nothing at all when the target kept the contract', () => {
    expect(deviationText({ violations: [] })).toEqual([]);
    expect(deviationMarkdown({ violations: [] })).toEqual([]);
  });
});
