import { escapeXml } from '../report/format.js';
import type { Comparison } from './compare-data.js';

/**
 * compare-junit.xml: one test case per gate, so CI lists them natively. An inconclusive gate is
 * skipped with its reason: it neither passed nor failed.
 */
export function renderCompareJunit(cmp: Comparison): string {
  const failures = cmp.gates.filter((g) => g.status === 'failed').length;
  const skipped = cmp.gates.filter((g) => g.status === 'inconclusive').length;
  const cases = cmp.gates.map((g) => {
    const open = `    <testcase classname="jobstorm.compare.gates" name="${escapeXml(g.expression)}" time="0">`;
    if (g.status === 'passed') return `${open}<system-out>${escapeXml(g.reason)}</system-out></testcase>`;
    if (g.status === 'inconclusive') return `${open}<skipped message="${escapeXml(g.reason)}"/></testcase>`;
    return [
      open,
      `      <failure type="gate" message="${escapeXml(g.reason)}">${escapeXml(`${g.expression} failed (${g.where}): ${g.reason}`)}</failure>`,
      '    </testcase>',
    ].join('\n');
  });
  const name = `jobstorm compare ${cmp.baseline.id} → ${cmp.current.id}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(name)}" tests="${cmp.gates.length}" failures="${failures}" errors="0" skipped="${skipped}">`,
    `  <testsuite name="jobstorm.compare.gates" tests="${cmp.gates.length}" failures="${failures}" errors="0" skipped="${skipped}" timestamp="${escapeXml(cmp.current.start)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
