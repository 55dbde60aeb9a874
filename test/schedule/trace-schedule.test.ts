import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { traceTimesOf } from '../../src/runner/trace-times.js';
import type { Phase, TracePhase } from '../../src/scenario/scenario.js';
import { arrivalSchedule, type ArrivalSchedule, type TraceTimes } from '../../src/schedule/index.js';

/*
 * A trace phase's arrivals, computed by hand from a small Mooncake trace: each row at its time from
 * the window's start (`from` counts from the first row), divided by the time scale, looped.
 */

// Times 1000, 1100, 1300, 1600, 2000 ms: offsets 0, 100, 300, 600, 1000 from the first row.
const ROWS = [1000, 1100, 1300, 1600, 2000].map((t, i) =>
  JSON.stringify({ timestamp: t, input_length: 10 + i, output_length: 100 + i }),
);

function fixture(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'jobstorm-trace-schedule-')), 'trace.jsonl');
  writeFileSync(file, `${ROWS.join('\n')}\n`);
  return file;
}

function trace(file: string, extra: Partial<TracePhase> = {}): TracePhase {
  return { kind: 'trace', file, format: 'mooncake', timeScale: 1, loops: 1, ...extra };
}

function scheduleOf(phases: readonly Phase[]): ArrivalSchedule {
  return arrivalSchedule(phases, { traces: traceTimesOf(phases, () => undefined) });
}

const times = (s: ArrivalSchedule): number[] => [...s].map((a) => a.atMs);

describe('trace phases in the arrival schedule', () => {
  const file = fixture();

  it('plays each row at its time from the first row, and ends at the last', () => {
    const s = scheduleOf([trace(file)]);
    expect(times(s)).toEqual([0, 100, 300, 600, 1000]);
    expect(s.windows[0]).toMatchObject({ kind: 'trace', startMs: 0, endMs: 1000, count: 5 });
    expect([...s].map((a) => a.trace?.outputTokens)).toEqual([100, 101, 102, 103, 104]);
    expect([...s].map((a) => a.trace?.line)).toEqual([1, 2, 3, 4, 5]);
  });

  it('timeScale 2 plays twice as fast, after a phase before it', () => {
    const s = scheduleOf([{ kind: 'count', count: 2, rate: 10 }, trace(file, { timeScale: 2 })]);
    // The count phase lasts 2 / 10 per second = 200 ms.
    expect(times(s)).toEqual([0, 100, 200, 250, 350, 500, 700]);
    expect(s.durationMs).toBe(700);
  });

  it('a window from 100ms to 700ms keeps 1100, 1300 and 1600, at their times after `from`', () => {
    const s = scheduleOf([trace(file, { fromMs: 100, toMs: 700 })]);
    expect(times(s)).toEqual([0, 200, 500]);
    expect(s.windows[0]?.endMs).toBe(600);
    expect([...s].map((a) => a.trace?.inputTokens)).toEqual([11, 12, 13]);
  });

  it('loop 2 plays the window again a pass later: the rows plus one mean gap (1000 + 250 ms)', () => {
    const s = scheduleOf([trace(file, { loops: 2 })]);
    expect(times(s)).toEqual([0, 100, 300, 600, 1000, 1250, 1350, 1550, 1850, 2250]);
    expect(s.windows[0]?.endMs).toBe(2250);
    expect(s.globalTotal).toBe(10);
  });

  it('loop 2 of a window with a `to` repeats every (to − from) / timeScale', () => {
    const s = scheduleOf([trace(file, { fromMs: 100, toMs: 700, loops: 2, timeScale: 2 })]);
    expect(times(s)).toEqual([0, 100, 250, 300, 400, 550]);
    expect(s.windows[0]?.endMs).toBe(600);
  });

  it('random access agrees with iteration, going back and forth across loops', () => {
    const s = scheduleOf([trace(file, { loops: 2 })]);
    const all = [...s];
    for (const hit of [0, 7, 3, 9, 4, 5, 1]) expect(s.arrival(hit)).toEqual(all[hit]);
    expect(s.arrival(10)).toBeUndefined();
    expect(s.pace(1300, 6)).toEqual({ waitMs: 50, done: false });
  });

  it('shards 1/2 and 2/2 take alternate rows and together are the whole', () => {
    const phases = [trace(file, { loops: 2 })];
    const whole = scheduleOf(phases);
    const one = whole.shard(1, 2);
    const two = whole.shard(2, 2);
    expect([...one].map((a) => a.index)).toEqual([0, 2, 4, 6, 8]);
    expect([...two].map((a) => a.index)).toEqual([1, 3, 5, 7, 9]);
    const merged = [...one, ...two].sort((a, b) => a.index - b.index);
    expect(merged).toEqual([...whole]);
    expect(two.arrival(2)).toEqual([...whole][5]);
  });

  it('a bad row stops the phase there and is told, once the schedule reaches it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-trace-bad-'));
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${ROWS.slice(0, 2).join('\n')}\n{"timestamp": 1200}\n${ROWS[3] ?? ''}\n`);
    const told: string[] = [];
    const phases = [trace(bad)];
    const s = arrivalSchedule(phases, { traces: traceTimesOf(phases, (e) => told.push(e.message)) });
    expect(told).toEqual([]);
    expect(times(s)).toEqual([0, 100]);
    expect(told).toEqual([
      `${bad}:3: input_length: missing (expected a number >= 0); output_length: missing (expected a number >= 0)`,
    ]);
  });

  it('needs the rows of its trace phases', () => {
    const phases = [trace(file)];
    expect(() => arrivalSchedule(phases)).toThrow(/replays a trace, but no trace rows were given/);
    const times: TraceTimes = { count: 0, passMs: 0, endMs: 0, points: () => [][Symbol.iterator]() };
    expect(arrivalSchedule(phases, { traces: () => times }).total).toBe(0);
  });
});

describe('{{trace.*}} in an input template', () => {
  it('renders the row sizes as numbers and a prompt of inputTokens words', async () => {
    const { compileInput } = await import('../../src/scenario/input-template.js');
    const c = compileInput({
      max_tokens: '{{trace.outputTokens}}',
      prompt: '{{trace.prompt}}',
      n: 'in {{trace.inputTokens}}',
    });
    expect(c.render({ iteration: 0, flow: 'f', trace: { inputTokens: 3, outputTokens: 40 } })).toEqual({
      max_tokens: 40,
      prompt: 'the time people',
      n: 'in 3',
    });
    expect(() => compileInput({ x: '{{trace.size}}' })).toThrow(/unknown placeholder \{\{trace.size\}\}/);
  });
});
