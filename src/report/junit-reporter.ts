import { escapeXml, formatMs, formatValue } from './format.js';
import type { Reporter } from './reporter.js';
import type { Summary, ViolationSummary } from './summary.js';

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function evidenceText(v: ViolationSummary): string {
  const e = v.examples[0];
  if (!e) return '';
  const lines = [`${v.count} violation${v.count === 1 ? '' : 's'}; first at t+${formatMs(e.at)}${e.jobId ? ` on job ${e.jobId}` : ''}: ${e.message}`];
  if (e.evidence.request) lines.push(`request: ${e.evidence.request}`);
  if (e.evidence.status !== undefined) lines.push(`status: ${e.evidence.status}`);
  if (e.evidence.body) lines.push(`body: ${e.evidence.body}`);
  if (e.evidence.timeline?.length) lines.push(`timeline: ${e.evidence.timeline.map((t) => `t+${formatMs(t.at)} ${t.op}${t.status !== undefined ? ` ${t.status}` : ''}`).join(' -> ')}`);
  if (e.repro) lines.push(`repro: ${e.repro}`);
  return lines.join('\n');
}

function checkCases(s: Summary): { xml: string[]; failures: number } {
  const fired = new Map(s.violations.map((v) => [v.id, v]));
  const xml: string[] = [];
  let failures = 0;
  for (const id of s.checks) {
    const family = id.split('.')[0] ?? id;
    const open = `    <testcase classname="jobstorm.checks.${escapeXml(family)}" name="${escapeXml(id)}" time="0">`;
    const v = fired.get(id);
    if (!v) {
      xml.push(`${open}</testcase>`);
      continue;
    }
    failures++;
    const first = v.examples[0];
    xml.push(
      open,
      `      <failure type="${v.severity}" message="${escapeXml(`${v.count}× ${first?.message ?? id}`)}">${escapeXml(evidenceText(v))}</failure>`,
      '    </testcase>',
    );
  }
  return { xml, failures };
}

function thresholdCases(s: Summary): { xml: string[]; failures: number } {
  const xml: string[] = [];
  let failures = 0;
  for (const t of s.thresholds) {
    const open = `    <testcase classname="jobstorm.thresholds" name="${escapeXml(t.expression)}" time="0">`;
    const value = formatValue(t.value, t.unit);
    if (t.ok) {
      xml.push(`${open}<system-out>value ${escapeXml(value)}</system-out></testcase>`);
      continue;
    }
    failures++;
    xml.push(open, `      <failure type="threshold" message="${escapeXml(`value ${value}`)}">${escapeXml(`${t.expression} failed: value ${value}`)}</failure>`, '    </testcase>');
  }
  return { xml, failures };
}

/**
 * junit.xml: one test case per check that ran (failed when it fired, with the first evidence) and
 * one per threshold, so CI systems list them natively.
 */
export const junitReporter: Reporter = {
  name: 'junit',
  fileName: 'junit.xml',
  render(s) {
    const checks = checkCases(s);
    const thresholds = thresholdCases(s);
    const time = seconds(s.run.durationMs);
    const suite = (name: string, tests: number, part: { xml: string[]; failures: number }): string[] => [
      `  <testsuite name="${name}" tests="${tests}" failures="${part.failures}" errors="0" skipped="0" time="${time}" timestamp="${escapeXml(s.run.start)}">`,
      ...part.xml,
      '  </testsuite>',
    ];
    const tests = s.checks.length + s.thresholds.length;
    return [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<testsuites name="jobstorm ${escapeXml(s.run.id)}" tests="${tests}" failures="${checks.failures + thresholds.failures}" errors="0" time="${time}">`,
      ...suite('jobstorm.checks', s.checks.length, checks),
      ...suite('jobstorm.thresholds', s.thresholds.length, thresholds),
      '</testsuites>',
      '',
    ].join('\n');
  },
};
