import { describe, expect, it } from 'vitest';
import { phaseAt, type PhasePlan } from '../../src/cli/run/phase-plan.js';
import { NARROWING, progressLine, type ProgressFigures } from '../../src/cli/run/progress-line.js';

const PLAN: PhasePlan = {
  phases: [
    { name: 'ramp-up', startMs: 0, endMs: 60_000 },
    { name: 'steady', startMs: 60_000, endMs: 600_000 },
  ],
  totalMs: 600_000,
  warmupMs: 30_000,
};

/** A busy moment of a long run: every field present, numbers of realistic width. */
function figures(over: Partial<ProgressFigures> = {}): ProgressFigures {
  return {
    phase: phaseAt(PLAN, 125_400),
    elapsedMs: 125_400,
    totalMs: PLAN.totalMs,
    snapshot: {
      arrivals: 12_345,
      dropped: 12,
      inFlight: 340,
      requests: 98_765,
      throttled: 321,
      errors: 4,
      skipped: {},
      elapsedMs: 125_400,
      rate: 212.4,
    },
    jobs: {
      submitted: 12_001,
      retried: 0,
      lost: 2,
      unfinished: 1_234,
      untracked: 0,
      byState: { COMPLETED: 10_500, FAILED: 250, CANCELLED: 0, TIMED_OUT: 15 },
    },
    latency: { p99Ms: 1_234.5, failed: 17 },
    violations: 3,
    ...over,
  };
}

describe('the progress line renderer', () => {
  it('at 200 columns shows every figure the issue asks for', () => {
    const line = progressLine(figures(), 199);
    expect(line.length).toBeLessThanOrEqual(199);
    for (const part of [
      'steady (2/2)',
      '2m05s/10m00s',
      '7m55s left',
      '212 arrivals/s',
      'p99 1.23s',
      'errors 17',
      'violations 3',
      '429s 321',
      'dropped 12',
      'jobs 1234 running, 10765 final',
    ])
      expect(line).toContain(part);
    // Only the running flows and the request count gave way, for the jobs in a shorter wording.
    expect(progressLine(figures(), 260)).toContain(
      'jobs: submitted 12001 · COMPLETED 10500 · FAILED 250 · TIMED_OUT 15 · lost 2 · unfinished 1234',
    );
  });

  it('at 80 columns, with small numbers, keeps the jobs running and final', () => {
    const smoke: PhasePlan = {
      phases: [{ name: 'smoke', startMs: 0, endMs: 4000 }],
      totalMs: 4000,
      warmupMs: 0,
    };
    const small = figures({
      phase: phaseAt(smoke, 2100),
      elapsedMs: 2100,
      totalMs: 4000,
      snapshot: { ...figures().snapshot, dropped: 0, throttled: 0, rate: 5 },
      jobs: {
        ...figures().jobs,
        submitted: 18,
        lost: 0,
        unfinished: 3,
        byState: { COMPLETED: 15, FAILED: 0, CANCELLED: 0, TIMED_OUT: 0 },
      },
      latency: { p99Ms: 113, failed: 0 },
      violations: 0,
    });
    expect(progressLine(small, 79)).toBe(
      'smoke  2s/4s  2s left  p99 113ms  errors 0  violations 0  15/18 jobs final',
    );
    expect(progressLine(small, 199)).toBe(
      'smoke  2s/4s  2s left  5.0 arrivals/s  p99 113ms  errors 0  violations 0  requests 98765  flows running 340  jobs: submitted 18 · COMPLETED 15 · unfinished 3',
    );
  });

  it('at 80 and 120 columns keeps the phase, elapsed/total and the time left (issue 47), then p99, errors, violations', () => {
    expect(progressLine(figures(), 79)).toBe(
      'steady  2m05s/10m00s  7m55s left  p99 1.23s  errors 17  violations 3',
    );
    expect(progressLine(figures(), 119)).toBe(
      'steady (2/2)  2m05s/10m00s  7m55s left  212/s  p99 1.23s  errors 17  violations 3  jobs 1234 running, 10765 final',
    );
  });

  it('says what the short job count counts, and names the drain instead of an elapsed past the total', () => {
    const smoke: PhasePlan = {
      phases: [{ name: 'smoke', startMs: 0, endMs: 4000 }],
      totalMs: 4000,
      warmupMs: 0,
    };
    const drain = figures({ phase: phaseAt(smoke, 5100), elapsedMs: 5100, totalMs: 4000 });
    expect(progressLine(drain, 79)).toBe(
      'draining  4s/4s +1s  p99 1.23s  errors 17  violations 3  10765/12001 jobs final',
    );
    expect(progressLine(figures(), 100)).toContain('10765/12001 jobs final');
  });

  it('is never longer than the width, and never cuts a field: every token is a whole one of the full line', () => {
    const full = progressLine(figures());
    const words = new Set(full.split(/\s+/));
    for (const extra of ['jobs', 'running,', 'final', '10765', '10765/12001']) words.add(extra);
    for (let width = 1; width <= 220; width++) {
      const line = progressLine(figures(), width);
      expect(line.length, `width ${String(width)}`).toBeLessThanOrEqual(width);
      for (const word of line.split(/\s+/).filter(Boolean)) {
        const known = words.has(word) || /^\d+(\.\d+)?\/s$/.test(word) || /^\d+\/\d+$/.test(word);
        expect(known, `"${word}" at width ${String(width)}: ${line}`).toBe(true);
      }
    }
  });

  it('gives way in the fixed order: narrower widths only ever lose fields, the time stays to the end', () => {
    const present = (line: string): string[] =>
      [
        'requests',
        'flows running',
        'left',
        'dropped',
        '429s',
        'arrivals/s',
        'p99',
        'errors',
        'violations',
        'jobs',
      ].filter((f) => line.includes(f));
    let before = present(progressLine(figures(), 220));
    for (let width = 219; width >= 14; width--) {
      const line = progressLine(figures(), width);
      const now = present(line);
      for (const f of now) expect(before, `${f} came back at width ${String(width)}`).toContain(f);
      before = now;
      expect(line).toContain('2m05s/10m00s');
    }
    // Where the run is goes last: the time left, then the phase; the elapsed / total never.
    expect(progressLine(figures(), 40)).toBe('steady  2m05s/10m00s  7m55s left');
    expect(progressLine(figures(), 26)).toBe('steady  2m05s/10m00s');
    expect(progressLine(figures(), 14)).toBe('2m05s/10m00s');
    expect(NARROWING.slice(-3)).toEqual([
      ['violations', 'drop'],
      ['left', 'drop'],
      ['phase', 'drop'],
    ]);
  });

  it('names the warm-up as such, then the phase, then the drain', () => {
    expect(phaseAt(PLAN, 10_000)).toEqual({ long: 'warm-up · ramp-up (1/2)', short: 'warm-up' });
    expect(phaseAt(PLAN, 45_000).long).toBe('ramp-up (1/2)');
    expect(phaseAt(PLAN, 600_500).long).toBe('draining');
    const draining = progressLine(figures({ phase: phaseAt(PLAN, 601_000), elapsedMs: 601_000 }), 199);
    expect(draining).toMatch(/^draining {2}10m00s\/10m00s \+1s {2}212/);
  });

  it('in a log (no width) prints every field at its longest, and hides what cannot apply', () => {
    const quiet = figures({
      snapshot: { ...figures().snapshot, dropped: 0, throttled: 0 },
      latency: { p99Ms: undefined, failed: 0 },
      jobs: { ...figures().jobs, submitted: 0 },
    });
    const noChecks: ProgressFigures = { ...quiet };
    delete noChecks.violations;
    const line = progressLine(noChecks);
    expect(line).toContain('p99 -');
    expect(line).toContain('errors 0');
    for (const gone of ['429s', 'dropped', 'violations', 'jobs']) expect(line).not.toContain(gone);
  });
});

describe('failing live thresholds on the progress line', () => {
  it('names them while there is room, counts them when narrow, and shows nothing while all hold', () => {
    const line = progressLine;
    const base = figures();
    expect(line(base)).not.toContain('failing');
    const failing = { ...base, failingThresholds: ['p99(run) < 500ms over 5s'] };
    expect(line(failing)).toContain('1 threshold failing: p99(run) < 500ms over 5s');
    for (const width of [80, 60, 40]) {
      const text = line(failing, width);
      expect(text.length).toBeLessThanOrEqual(width);
    }
    expect(line(failing, 80)).toMatch(/threshold failing|✗ 1/);
  });
});
