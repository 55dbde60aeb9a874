import type { Summary } from './summary.js';

/**
 * How closely the arrivals kept to their schedule (or to the trace a phase replays), from the
 * per-second due and sent counts: the backlog at the end of each second is what was due so far
 * less what went out. One line, and only when the records marked arrivals.
 */
export function arrivalLines(s: Pick<Summary, 'series'>): string[] {
  const { due, sent } = s.series;
  if (due === undefined || sent === undefined) return [];
  let dueSoFar = 0;
  let sentSoFar = 0;
  let worst = { backlog: 0, second: 0 };
  for (let i = 0; i < due.length; i++) {
    dueSoFar += due[i] ?? 0;
    sentSoFar += sent[i] ?? 0;
    if (dueSoFar - sentSoFar > worst.backlog) worst = { backlog: dueSoFar - sentSoFar, second: i };
  }
  const total = `${String(sentSoFar)} of ${String(dueSoFar)} arrivals sent`;
  // One arrival due at a second's end goes out in the next: a backlog of one is no falling behind.
  if (worst.backlog <= 1)
    return [
      `Arrivals: ${total}, each in the second it was due (the schedule, or the trace replayed, was kept).`,
    ];
  return [
    `Arrivals: ${total}; they fell behind their schedule by up to ${String(worst.backlog)} at the end of second ${String(worst.second)} (see the arrivals chart of report.html).`,
  ];
}
