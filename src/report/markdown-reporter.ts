import { windowLine } from './threshold-window-line.js';
import { escapeXml, markdownTable, thresholdValueText } from './format.js';
import { scalingMarkdownLines } from './scaling-rows.js';
import { exportLines } from './export-lines.js';
import { deviationMarkdown } from './deviation-lines.js';
import { renderWorkersSection } from './workers-section.js';
import { arrivalLines } from './arrival-lines.js';
import { connectionWaitLines, generatorLines, stallLines } from './stall-lines.js';
import { warmupLines } from './warmup-line.js';
import { capLines } from './cap-lines.js';
import type { Reporter } from './reporter.js';
import {
  COVERAGE_HEADER,
  OPERATION_HEADER,
  TIMING_HEADER,
  atLabel,
  countsLine,
  coverageRows,
  jobCountsLine,
  notExercised,
  operationRows,
  runLine,
  timingRows,
  TOKEN_HEADER,
  tokenLines,
  tokenRows,
  verdictMark,
  verdictWord,
} from './report-view.js';
import type { Summary } from './summary.js';
import { knownEntryLines, knownTitle, skippedLines, violationCountText } from './known-lines.js';

/** Inline code that survives backticks inside it. */
function code(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${text.includes('`') ? ` ${text} ` : text}${fence}`;
}

const VERDICT_MARK = {
  passed: '✅',
  failed: '❌',
  inconclusive: '⚠️',
  unreachable: '⛔',
  interrupted: '⏸️',
} as const;

function verdict(s: Summary): string {
  const [headline, ...more] = s.verdict.reasons;
  return [
    `${VERDICT_MARK[s.verdict.status]} **${verdictWord(s)}**${verdictMark(s)}${headline ? `: ${headline}` : ''}`,
    ...more.map((r) => `- ${r}`),
  ].join('\n');
}

function coverageSection(s: Summary): string[] {
  const ids = Object.keys(s.coverage);
  if (ids.length === 0) return [];
  const idle = notExercised(s).length;
  return [
    '### Checks',
    '',
    `${String(ids.length - idle)} of ${String(ids.length)} checks exercised; a check that judged nothing is not a pass.`,
    '',
    ...markdownTable(
      COVERAGE_HEADER,
      coverageRows(s).map(([id, n, r]) => [code(id ?? ''), n ?? '', r ?? '']),
      ['l', 'r', 'l'],
    ),
    '',
  ];
}

/** The known deviations and the skipped checks, each a list under its heading; none without. */
function knownSection(s: Summary): string[] {
  const entries = knownEntryLines(s);
  const skipped = skippedLines(s);
  return [
    ...(entries.length ? ['', `### ${knownTitle(s)}`, '', ...entries.map((l) => `- ${l}`)] : []),
    ...(skipped.length ? ['', '### Skipped checks', '', ...skipped.map((l) => `- ${l}`)] : []),
  ];
}

function violationSection(s: Summary): string[] {
  if (!s.violations.length) return ['No violations.', ...knownSection(s)];
  const rows = s.violations.map((v) => {
    const e = v.examples[0];
    return [
      code(v.id),
      v.severity,
      violationCountText(v),
      e ? `${atLabel(e.at)}${e.jobId ? ` job ${code(e.jobId)}` : ''}: ${e.message}` : '',
    ];
  });
  const out = markdownTable(['check', 'severity', 'count', 'first example'], rows, ['l', 'l', 'r', 'l']);
  for (const v of s.violations) {
    const e = v.examples[0];
    if (!e) continue;
    const body: string[] = [];
    if (e.evidence.request) body.push(`request: ${e.evidence.request}`);
    if (e.evidence.status !== undefined) body.push(`status: ${e.evidence.status}`);
    if (e.evidence.body) body.push(`body: ${e.evidence.body}`);
    if (e.evidence.timeline?.length)
      body.push(
        `timeline: ${e.evidence.timeline.map((t) => `${atLabel(t.at)} ${t.op}${t.status !== undefined ? ` ${t.status}` : ''}`).join(' → ')}`,
      );
    if (e.repro) body.push(`repro: ${e.repro}`);
    if (!body.length) continue;
    out.push(
      '',
      `<details><summary>${escapeXml(v.id)}: evidence</summary>`,
      '',
      '```text',
      ...body.map((l) => l.replace(/```/g, "'''")),
      '```',
      '',
      '</details>',
    );
  }
  return [...out, ...knownSection(s)];
}

/** summary.md: the same figures as the terminal summary, as a pull-request comment or step summary. */
/** Under the table, one line per windowed threshold: its worst window, failed windows, whole-run value. */
function windowNotes(s: Summary): string[] {
  const notes = s.thresholds.flatMap((t) => {
    const w = windowLine(t);
    return w === undefined ? [] : [`- ${code(t.expression)}: ${w}`];
  });
  return notes.length ? ['', ...notes] : [];
}

export const markdownReporter: Reporter = {
  name: 'markdown',
  fileName: 'summary.md',
  render(s) {
    const out: string[] = ['## jobstorm', '', verdict(s), '', runLine(s), ''];
    out.push(...deviationMarkdown(s));
    if (s.preflight?.length)
      out.push(
        '### Preflight',
        '',
        ...s.preflight.map((p) => `- ${p.ok ? '✅' : '⚠️'} ${p.check}: ${p.detail}`),
        '',
      );
    // An LLM run is judged by its tokens first: they lead, before the requests that carried them.
    const tokens = tokenRows(s);
    if (tokens.length)
      out.push(
        '### Streamed tokens',
        '',
        ...tokenLines(s).flatMap((l) => [l, '']),
        ...markdownTable(TOKEN_HEADER, tokens),
        '',
      );
    out.push('### Operations', '');
    out.push(...markdownTable(OPERATION_HEADER, operationRows(s)));
    out.push(
      '',
      '_Latency from the intended start (free of coordinated omission), all responses._',
      '',
      '### Jobs',
      '',
      jobCountsLine(s),
      '',
    );
    const timings = timingRows(s);
    if (timings.length) out.push(...markdownTable(TIMING_HEADER, timings), '');
    out.push(
      `Transport errors: ${countsLine(s.errors)}. Dropped arrivals: ${s.dropped.total}.${s.run.iterationsCut ? ` Iterations cut at the graceful stop: ${String(s.run.iterationsCut)}.` : ''}`,
      ...[...arrivalLines(s), ...connectionWaitLines(s), ...exportLines(s.exports)].flatMap((l) => ['', l]),
      '',
    );
    out.push(...scalingMarkdownLines(s));
    const warmup = [...warmupLines(s), ...capLines(s)];
    if (warmup.length) out.push(...warmup.map((l) => `_${l}._`), '');
    const stalls = [...stallLines(s), ...generatorLines(s)];
    if (stalls.length) out.push(...stalls.map((l) => `**${l}**`), '');
    out.push('### Violations', '');
    out.push(...violationSection(s), '', '### Thresholds', '');
    if (s.thresholds.length) {
      out.push(
        ...markdownTable(
          ['', 'threshold', 'value'],
          s.thresholds.map((t) => [t.ok ? '✅' : '❌', code(t.expression), thresholdValueText(t)]),
          ['l', 'l', 'r'],
        ),
        ...windowNotes(s),
      );
    } else {
      out.push('No thresholds set.');
    }
    out.push('', ...coverageSection(s));
    if (s.workers) out.push('', renderWorkersSection(s.workers.rows, s.workers.processes).trimEnd());
    return `${out.join('\n')}\n`;
  },
};
