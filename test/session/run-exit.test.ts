import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/exit-code.js';
import { endingOf, exitCodeOf } from '../../src/session/run-exit.js';

/* Issue 49: a trace phase stopped by a row that does not parse is a configuration error. */

describe('the exit code of a run whose trace had a bad row', () => {
  const summary = { run: { end: 'completed' as const }, verdict: { status: 'passed' as const, reasons: [] } };

  it('is a configuration error, whatever was measured before the row', () => {
    const ending = endingOf(summary as never, { traceError: 'the trace stopped at a bad row: t.jsonl:3: …' });
    expect(exitCodeOf(ending)).toBe(ExitCode.Usage);
    expect(exitCodeOf(endingOf(summary as never, {}))).toBe(ExitCode.Ok);
  });

  it('gives way to a refused key, a halt or a lost report, which say more', () => {
    expect(exitCodeOf({ status: 'passed', traceError: true, reportsFailed: true })).toBe(ExitCode.Aborted);
  });
});
