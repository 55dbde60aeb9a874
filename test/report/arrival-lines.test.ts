import { describe, expect, it } from 'vitest';
import { arrivalLines } from '../../src/report/arrival-lines.js';
import type { Summary } from '../../src/report/summary.js';

const series = (due?: number[], sent?: number[]): Pick<Summary, 'series'> =>
  ({ series: { due, sent } }) as unknown as Pick<Summary, 'series'>;

describe('arrivalLines: how closely arrivals kept to their schedule', () => {
  it('says nothing for a summary whose records marked no arrivals', () => {
    expect(arrivalLines(series())).toEqual([]);
  });

  it('a run that kept its schedule, an arrival crossing a second’s end included', () => {
    expect(arrivalLines(series([10, 10, 10], [9, 11, 10]))).toEqual([
      'Arrivals: 30 of 30 arrivals sent, each in the second it was due (the schedule, or the trace replayed, was kept).',
    ]);
  });

  it('names the largest backlog and its second when sending fell behind', () => {
    expect(arrivalLines(series([10, 10, 10, 0], [10, 4, 6, 10]))).toEqual([
      'Arrivals: 30 of 30 arrivals sent; they fell behind their schedule by up to 10 at the end of second 2 (see the arrivals chart of report.html).',
    ]);
  });
});
