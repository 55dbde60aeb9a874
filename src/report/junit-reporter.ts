import { resolutionOfMetric } from '../metrics/timing-resolution.js';
import { windowLine } from './threshold-window-line.js';
import { escapeXml, formatValue } from './format.js';
import { atLabel } from './report-view.js';
import { knownCount, newCount } from './known-lines.js';
import type { Reporter } from './reporter.js';
import type { Summary, ViolationSummary } from './summary.js';

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function evidenceText(v: ViolationSummary): string {
  const e = v.examples[0];
  if (!e) return '';
  const fresh = newCount(v);
  const known = knownCount(v) > 0 ? ` (and ${String(knownCount(v))} known, accepted)` : '';
  const lines = [
    `${fresh} violation${fresh === 1 ? '' : 's'}${known}; first at ${atLabel(e.at)}${e.jobId ? ` on job ${e.jobId}` : ''}: ${e.message}`,
  ];
  if (e.evidence.request) lines.push(`request: ${e.evidence.request}`);
  if (e.evidence.status !== undefined) lines.push(`status: ${e.evidence.status}`);
  if (e.evidence.body) lines.push(`body: ${e.evidence.body}`);
  if (e.evidence.timeline?.length)
    lines.push(
      `timeline: ${e.evidence.timeline.map((t) => `${atLabel(t.at)} ${t.op}${t.status !== undefined ? ` ${t.status}` : ''}`).join(' -> ')}`,
    );
  if (e.repro) lines.push(`repro: ${e.repro}`);
  return lines.join('\n');
}

interface Cases {
  xml: string[];
  failures: number;
  skipped: number;
  errors: number;
}

/** Check ids in the report: every id of the coverage (all the catalog's), else those that ran. */
function checkIds(s: Summary): string[] {
  const ids = Object.keys(s.coverage);
  return ids.length > 0 ? [...new Set([...ids, ...s.violations.map((v) => v.id)])] : s.checks;
}

function checkCases(s: Summary): Cases {
  const fired = new Map(s.violations.map((v) => [v.id, v]));
  const xml: string[] = [];
  let failures = 0;
  let skipped = 0;
  for (const id of checkIds(s)) {
    const family = id.split('.')[0] ?? id;
    const open = `    <testcase classname="jobstorm.checks.${escapeXml(family)}" name="${escapeXml(id)}" time="0">`;
    const v = fired.get(id);
    const judged = s.coverage[id];
    const skip = skipCase(s, id, v);
    if (skip !== undefined) {
      // Known findings and skipped checks are not failures, and not passes either: said as skipped, with why.
      skipped++;
      xml.push(open, `      <skipped message="${escapeXml(skip)}"/>`, '    </testcase>');
      continue;
    }
    if (!v && judged === 0) {
      // Not a pass: nothing this run sent could have broken the rule.
      skipped++;
      xml.push(
        open,
        '      <skipped message="not exercised: no observation of this run could have broken this rule"/>',
        '    </testcase>',
      );
      continue;
    }
    if (!v) {
      xml.push(
        `${open}${judged === undefined ? '' : `<system-out>${String(judged)} observations judged</system-out>`}</testcase>`,
      );
      continue;
    }
    failures++;
    const first = v.examples[0];
    xml.push(
      open,
      `      <failure type="${v.severity}" message="${escapeXml(`${newCount(v)}× ${first?.message ?? id}`)}">${escapeXml(evidenceText(v))}</failure>`,
      '    </testcase>',
    );
  }
  return { xml, failures, skipped, errors: 0 };
}

/**
 * Why a check's test case is skipped rather than judged: the run skipped the check, or every
 * finding of it was a known deviation (the entries that accepted them say why). Undefined otherwise.
 */
function skipCase(s: Summary, id: string, v: ViolationSummary | undefined): string | undefined {
  if (!v) {
    const why = s.skipped?.[id];
    return why === undefined ? undefined : `skipped: ${why}`;
  }
  if (newCount(v) > 0) return undefined;
  const entries = Object.keys(v.entries ?? {}).flatMap((k) => s.known?.entries[Number(k)] ?? []);
  const said = entries.map(
    (e) => `${e.why} (${e.who}${e.expires === undefined ? '' : `, until ${e.expires}`})`,
  );
  return `known deviation: ${String(knownCount(v))} finding${knownCount(v) === 1 ? '' : 's'} accepted; ${said.join('; ')}`;
}

function thresholdCases(s: Summary): Cases {
  const xml: string[] = [];
  let failures = 0;
  for (const t of s.thresholds) {
    const open = `    <testcase classname="jobstorm.thresholds" name="${escapeXml(t.expression)}" time="0">`;
    const value = formatValue(t.value, t.unit, resolutionOfMetric(t.expression));
    const w = windowLine(t);
    const windows = w === undefined ? '' : `; ${w}`;
    if (t.ok) {
      xml.push(`${open}<system-out>value ${escapeXml(value + windows)}</system-out></testcase>`);
      continue;
    }
    failures++;
    const why =
      t.notEvaluated !== undefined
        ? `${t.expression}: not evaluated (${t.notEvaluated}), so not a pass`
        : t.value === null
          ? `${t.expression}: no samples, so not a pass${windows}`
          : `${t.expression} failed: value ${value}${windows}`;
    const type =
      t.notEvaluated !== undefined ? 'not-evaluated' : t.value === null ? 'no-samples' : 'threshold';
    xml.push(
      open,
      `      <failure type="${type}" message="${escapeXml(`value ${value}`)}">${escapeXml(why)}</failure>`,
      '    </testcase>',
    );
  }
  return { xml, failures, skipped: 0, errors: 0 };
}

/** The run's verdict as a test case: a failure when failed or inconclusive, an error when the run could not finish. */
function verdictCase(s: Summary): Cases {
  const { status, reasons } = s.verdict;
  const open = `    <testcase classname="jobstorm.run" name="verdict" time="0">`;
  const text = escapeXml(reasons.join('\n'));
  if (status === 'passed')
    return {
      xml: [`${open}<system-out>passed: ${text}</system-out></testcase>`],
      failures: 0,
      skipped: 0,
      errors: 0,
    };
  const tag = status === 'unreachable' || status === 'interrupted' ? 'error' : 'failure';
  return {
    xml: [
      open,
      `      <${tag} type="${status}" message="${escapeXml(`${status}: ${reasons[0] ?? ''}`)}">${text}</${tag}>`,
      '    </testcase>',
    ],
    failures: tag === 'failure' ? 1 : 0,
    skipped: 0,
    errors: tag === 'error' ? 1 : 0,
  };
}

/**
 * junit.xml: the verdict as a test case, one per check id (failed when it fired, with the first
 * evidence; skipped when it judged nothing) and one per threshold, so CI systems list them natively.
 */
export const junitReporter: Reporter = {
  name: 'junit',
  fileName: 'junit.xml',
  render(s) {
    const run = verdictCase(s);
    const checks = checkCases(s);
    const thresholds = thresholdCases(s);
    const time = seconds(s.run.durationMs);
    const suite = (name: string, tests: number, part: Cases, properties: string[] = []): string[] => [
      `  <testsuite name="${name}" tests="${tests}" failures="${part.failures}" errors="${part.errors}" skipped="${part.skipped}" time="${time}" timestamp="${escapeXml(s.run.start)}">`,
      ...properties,
      ...part.xml,
      '  </testsuite>',
    ];
    const checkCount = checkIds(s).length;
    const tests = 1 + checkCount + s.thresholds.length;
    const all = [run, checks, thresholds];
    const sum = (k: 'failures' | 'errors' | 'skipped'): number => all.reduce((n, c) => n + c[k], 0);
    return [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<testsuites name="jobstorm ${escapeXml(s.run.id)}" tests="${tests}" failures="${sum('failures')}" errors="${sum('errors')}" skipped="${sum('skipped')}" time="${time}">`,
      ...suite('jobstorm.run', 1, run, [
        '    <properties>',
        `      <property name="verdict" value="${s.verdict.status}"/>`,
        `      <property name="end" value="${s.run.end}"/>`,
        ...(s.verdict.generatorLimited ? ['      <property name="generator-limited" value="true"/>'] : []),
        ...(s.warmup
          ? [`      <property name="warmup-ms" value="${String(Math.round(s.warmup.ms))}"/>`]
          : []),
        '    </properties>',
      ]),
      ...suite('jobstorm.checks', checkCount, checks),
      ...suite('jobstorm.thresholds', s.thresholds.length, thresholds),
      '</testsuites>',
      '',
    ].join('\n');
  },
};
