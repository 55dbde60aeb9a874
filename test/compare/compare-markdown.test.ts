import { describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/compare/compare-data.js';
import { renderCompareJunit } from '../../src/compare/compare-junit.js';
import { renderCompareMarkdown } from '../../src/compare/compare-markdown.js';
import { checksLine, headlineLines } from '../../src/compare/compare-view.js';
import { fixtureComparison } from './fixtures/compare-fixture.js';

/*
 * compare.md and compare-junit.xml beyond the golden files (which hold the fixture comparison):
 * a comparison forced, without gates, without untested changes or notable checks.
 */
const CMP = fixtureComparison();

const bare = (): Comparison => ({
  ...CMP,
  gates: [],
  checks: [],
  deltas: CMP.deltas.filter((d) => d.untested === null || !d.large),
  forced: ['different scenarios: a', 'b'],
  verdict: { status: 'inconclusive', reasons: ['r1', 'r2'] },
});

describe('compare.md', () => {
  it('forced, no gates, nothing untested, no notable check: each said in its place', () => {
    const cmp = bare();
    const md = renderCompareMarkdown(cmp);
    const [headline = '', ...rest] = headlineLines(cmp);
    expect(rest).toEqual([]);
    expect(md).toContain('## jobstorm compare\n\n⚠️ **inconclusive**: r1; r2\n\n');
    expect(md).toContain('  \nCurrent ');
    expect(md).toContain('\n\nCompared with --force although: different scenarios: a; b.\n\n');
    expect(md).toContain(`\n${headline}\n\n### Gates\n\nNo gates set.\n\n### Changes\n\n`);
    expect(md.endsWith(`### Checks\n\n${checksLine(cmp)}\n`)).toBe(true);
  });

  it('a gate or a metric holding a backtick is quoted with double backticks', () => {
    const [gate] = CMP.gates;
    const [row] = CMP.deltas;
    if (!gate || !row) throw new Error('fixture');
    const md = renderCompareMarkdown({
      ...CMP,
      gates: [{ ...gate, expression: 'a`b' }],
      deltas: [{ ...row, metric: 'm`n' }],
    });
    expect(md).toContain('| `` a`b `` |');
    expect(md).toContain('| `` m`n `` |');
    expect(renderCompareMarkdown(CMP)).toContain(`| \`${gate.expression}\` |`);
  });

  it('a row with no mark ends with an empty cell; a marked one in bold', () => {
    const md = renderCompareMarkdown(CMP);
    const regression = CMP.deltas.find((d) => d.significant && d.direction === 'worse');
    expect(regression).toBeDefined();
    expect(md).toMatch(new RegExp(`\\| \`${(regression?.metric ?? '').replace(/[()]/g, '\\$&')}\` \\|.*\\| \\*\\*regression\\*\\* \\|`));
  });
});

describe('compare-junit.xml', () => {
  it('no gates: an empty suite that counts nothing', () => {
    const xml = renderCompareJunit(bare());
    expect(xml).toContain('tests="0" failures="0" errors="0" skipped="0">');
    expect(xml).not.toContain('<testcase');
  });

  it('counts failures and skips apart, and escapes what a gate says', () => {
    const [gate] = CMP.gates;
    if (!gate) throw new Error('fixture');
    const gates = [
      { ...gate, status: 'failed' as const, expression: 'a<b', reason: 'x & y' },
      { ...gate, status: 'failed' as const },
      { ...gate, status: 'inconclusive' as const, reason: '"why"' },
      { ...gate, status: 'passed' as const },
    ];
    const xml = renderCompareJunit({ ...CMP, gates });
    expect(xml).toContain('<testsuites name="jobstorm compare ');
    expect(xml).toContain('tests="4" failures="2" errors="0" skipped="1">');
    expect(xml).toContain('<testcase classname="jobstorm.compare.gates" name="a&lt;b" time="0">');
    expect(xml).toContain('<failure type="gate" message="x &amp; y">a&lt;b failed (--gate): x &amp; y</failure>');
    expect(xml).toContain('<skipped message="&quot;why&quot;"/></testcase>');
  });
});
