import { describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/compare/compare-data.js';
import { renderCompareText } from '../../src/compare/compare-text.js';
import {
  DELTA_HEADER,
  checksLine,
  columnsNote,
  deltaCells,
  gateCells,
  headlineLines,
  runLine,
} from '../../src/compare/compare-view.js';
import { textTable } from '../../src/report/format.js';
import { LARGE_RULE } from '../../src/compare/large-change.js';
import { fixtureComparison } from './fixtures/compare-fixture.js';

/* What `jobstorm compare` prints (compare-text.ts), line by line, from the fixture comparison. */
const CMP = fixtureComparison();
// Rendered inside each test, so the mutation run counts each renderer line as covered by the test that reads it.
const text = (): string => renderCompareText(CMP);

describe('the console text of a comparison', () => {
  it('opens with the verdict in capitals and its first reason, then the other reasons indented', () => {
    const TEXT = text();
    const LINES = TEXT.split('\n');
    const [first = '', ...more] = CMP.verdict.reasons;
    expect(LINES[0]).toBe(`compare: FAILED — ${first}`);
    expect(LINES.slice(1, 1 + more.length)).toEqual(more.map((r) => `  ${r}`));
    // Not forced: the headline's blank line follows the runs.
    expect(LINES.slice(1 + more.length, 5 + more.length)).toEqual([
      '',
      `baseline ${runLine(CMP.baseline)}`,
      `current  ${runLine(CMP.current)}`,
      '',
    ]);
    expect(TEXT.endsWith(`  ${checksLine(CMP)}\n`)).toBe(true);
  });

  it('the headline, then each change it could not call significant as an indented item', () => {
    const TEXT = text();
    const LINES = TEXT.split('\n');
    const [headline = '', ...rest] = headlineLines(CMP);
    const at = LINES.indexOf(headline);
    expect(at).toBeGreaterThan(0);
    expect(LINES[at - 1]).toBe('');
    expect(LINES.slice(at + 1, at + 2 + rest.length)).toEqual([...rest.map((l) => `  - ${l}`), '']);
  });

  it('one line per gate: its mark, FAILED in capitals, the gate, both values and the result', () => {
    const TEXT = text();
    const LINES = TEXT.split('\n');
    const at = LINES.indexOf('gates:');
    const mark = { passed: '✓', failed: '✗', inconclusive: '?' } as const;
    expect(LINES.slice(at + 1, at + 1 + CMP.gates.length)).toEqual(
      CMP.gates.map((g) => {
        const [status = '', expression = '', baseline = '', current = '', result = ''] = gateCells(g);
        return `  ${mark[g.status]} ${g.status === 'failed' ? 'FAILED' : status}  ${expression}  (${baseline} → ${current}): ${result}`;
      }),
    );
    expect(LINES[at + 1 + CMP.gates.length]).toBe('');
    expect(TEXT).toContain('  ✗ FAILED  delta(p50(executionTime)) < 10%  (');
    expect(TEXT).toContain('  ✓ passed  delta(p99(run)) < 10%  (');
    expect(TEXT).toContain('  ? inconclusive  delta(p99(cancel)) < 10%  (');
  });

  it('the changes by group, each table indented under its group, then the two notes', () => {
    const TEXT = text();
    const LINES = TEXT.split('\n');
    const at = LINES.indexOf('changes:');
    const groups = [...new Set(CMP.deltas.map((d) => d.group))];
    expect(LINES[at + 1]).toBe(`  ${groups[0] ?? ''}`);
    expect(LINES[at + 2]).toMatch(/^ {4}metric +baseline +current +change +interval +confidence/);
    const block = groups.flatMap((g) => [
      `  ${g}`,
      ...textTable(DELTA_HEADER, CMP.deltas.filter((d) => d.group === g).map(deltaCells)).map((l) => `    ${l}`),
    ]);
    expect(LINES.slice(at + 1, at + 1 + block.length)).toEqual(block);
    const notes = LINES.indexOf(`  ${columnsNote(CMP)}`);
    expect(notes).toBeGreaterThan(at);
    expect(LINES[notes + 1]).toBe(`  ${LARGE_RULE}`);
    expect(LINES[notes + 2]).toBe('');
    expect(LINES[notes + 3]).toBe('checks:');
    expect(LINES[notes + 4]).toMatch(/^ {2}check +violations before +violations now/);
  });

  it('no gates, no notable check, forced, no reasons: each said plainly', () => {
    const cmp: Comparison = {
      ...CMP,
      gates: [],
      checks: [],
      forced: ['different scenarios: a', 'b'],
      verdict: { status: 'passed', reasons: [] },
    };
    const text = renderCompareText(cmp);
    const lines = text.split('\n');
    expect(lines[0]).toBe('compare: PASSED');
    expect(lines[1]).toBe('');
    expect(lines[4]).toBe('Compared with --force although: different scenarios: a; b');
    expect(lines[5]).toBe('');
    expect(text).toContain('\ngates: none set\n\nchanges:\n');
    expect(text.endsWith(`\nchecks:\n  ${checksLine(cmp)}\n`)).toBe(true);
  });
});
