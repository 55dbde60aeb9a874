import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../src/check/catalog.js';
import { atLabel } from '../../src/report/report-view.js';
import { terminalReporter } from '../../src/report/terminal-reporter.js';
import { TERMINAL_LINE_MAX, terminalLines } from '../../src/report/terminal-lines.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';

/* Issue 47 item 6: the terminal summary printed a line of 1,113 characters and one of 379. */

describe('terminal summary lines', () => {
  it('a short line is itself', () => {
    expect(terminalLines('violations: none')).toEqual(['violations: none']);
    expect(terminalLines('x'.repeat(TERMINAL_LINE_MAX))).toEqual(['x'.repeat(TERMINAL_LINE_MAX)]);
  });

  it('long prose is wrapped at spaces, its continuation indented under it, every word kept', () => {
    const words = Array.from({ length: 80 }, (_, i) => `word${String(i)}`);
    const line = `  verdict note: ${words.join(' ')}`;
    const out = terminalLines(line);
    expect(out.length).toBeGreaterThan(2);
    for (const l of out) expect(l.length).toBeLessThanOrEqual(100);
    expect(out[0]?.startsWith('  verdict note: word0')).toBe(true);
    for (const l of out.slice(1)) expect(l.startsWith('    ')).toBe(true);
    expect(out.join(' ').split(/\s+/).filter(Boolean)).toEqual(line.trim().split(' '));
  });

  it('a command to paste is cut, not wrapped, and says where it is whole', () => {
    const repro = `      repro: curl -sS -X POST 'http://x/run' -d '${'{"a":1}'.repeat(60)}'`;
    const [only, ...rest] = terminalLines(repro);
    expect(rest).toEqual([]);
    expect(only?.length).toBeLessThanOrEqual(TERMINAL_LINE_MAX);
    expect(only).toMatch(/^ {6}repro: curl -sS -X POST .*… \(whole in summary\.md and report\.html\)$/);
  });
});

describe('a finding before time 0', () => {
  it('is said to be before the start, never t+-…', () => {
    expect(atLabel(-20.247)).toBe('t−20.2ms (before the start)');
    expect(atLabel(1500)).toBe('t+1.50s');
    expect(atLabel(0)).toBe('t+0µs');
  });
});

describe('the terminal summary of a run that exercised few of the checks', () => {
  it('counts the ones not exercised instead of listing dozens, and no line passes three rows of 80', () => {
    const s = fixtureSummary();
    const coverage = { ...Object.fromEntries(CHECK_IDS.map((id) => [id, 0])), ...s.coverage };
    const text = terminalReporter.render({ ...s, coverage });
    const idle = Object.values(coverage).filter((n) => n === 0).length;
    expect(idle).toBeGreaterThan(40);
    expect(text).toContain(
      `checks exercised; ${String(idle)} not exercised (listed in summary.md and report.html)`,
    );
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(TERMINAL_LINE_MAX);
  });
});
