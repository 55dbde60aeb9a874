import { formatThreshold, textTable } from './format.js';
import { windowLine } from './threshold-window-line.js';
import { exportLines } from './export-lines.js';
import { deviationText } from './deviation-lines.js';
import { connectionWaitLines, generatorLines, stallLines } from './stall-lines.js';
import { warmupLines } from './warmup-line.js';
import { capLines } from './cap-lines.js';
import { terminalLines } from './terminal-lines.js';
import { scalingTextLines } from './scaling-rows.js';
import type { Reporter } from './reporter.js';
import {
  OPERATION_HEADER,
  TIMING_HEADER,
  atLabel,
  countsLine,
  failedThresholds,
  jobCountsLine,
  notExercised,
  operationRows,
  probe4xxLine,
  runLine,
  timingRows,
  TOKEN_HEADER,
  tokenLines,
  tokenRows,
  violationTotal,
  verdictMark,
  verdictWord,
} from './report-view.js';
import type { Summary } from './summary.js';
import {
  knownCount,
  knownEntryLines,
  knownTitle,
  newCount,
  skippedLines,
  violationCountText,
} from './known-lines.js';

function verdictLines(s: Summary): string[] {
  const [headline, ...more] = s.verdict.reasons;
  return [
    `verdict: ${verdictWord(s)}${verdictMark(s)}${headline ? ` — ${headline}` : ''}`,
    ...more.map((r) => `  ${r}`),
  ];
}

function coverageLine(s: Summary): string {
  const ids = Object.keys(s.coverage);
  if (ids.length === 0)
    return `checks: ${s.checks.length ? `${String(s.checks.length)} ids, coverage unknown` : 'off'}`;
  const idle = notExercised(s);
  const head = `checks: ${String(ids.length - idle.length)} of ${String(ids.length)} checks exercised`;
  if (idle.length === 0) return head;
  const named = `${head} (not exercised: ${idle.join(', ')})`;
  // A few ids fit on the line; dozens made one line of a thousand characters (issue 47): then the
  // count, and the ids in the reports.
  return named.length <= 100
    ? named
    : `${head}; ${String(idle.length)} not exercised (listed in summary.md and report.html)`;
}

function violationLines(s: Summary): string[] {
  if (!s.violations.length) return ['violations: none', ...knownLines(s)];
  const known = s.violations.reduce((n, v) => n + knownCount(v), 0);
  const lines = [
    `violations: ${violationTotal(s)} across ${s.violations.length} check ids${known > 0 ? ` (${String(known)} known)` : ''}`,
  ];
  for (const v of s.violations) {
    lines.push(`  ${newCount(v) === 0 ? '~' : '✗'} ${v.id} [${v.severity}] ×${violationCountText(v)}`);
    const e = v.examples[0];
    if (e) {
      lines.push(`      ${atLabel(e.at)}${e.jobId ? ` job ${e.jobId}` : ''}: ${e.message}`);
      if (e.evidence.request) lines.push(`      request: ${e.evidence.request}`);
      if (e.repro) lines.push(`      repro: ${e.repro}`);
    }
  }
  return [...lines, ...knownLines(s)];
}

/** The known deviations with what became of each, and the skipped checks with why; none without. */
function knownLines(s: Summary): string[] {
  const entries = knownEntryLines(s);
  const skipped = skippedLines(s);
  return [
    ...(entries.length ? [`${knownTitle(s, 'known')}:`, ...entries.map((l) => `  ${l}`)] : []),
    ...(skipped.length ? ['skipped checks:', ...skipped.map((l) => `  ${l}`)] : []),
  ];
}

function thresholdLines(s: Summary): string[] {
  if (!s.thresholds.length) return ['thresholds: none set'];
  const failed = failedThresholds(s);
  return [
    `thresholds: ${s.thresholds.length - failed} passed, ${failed} failed`,
    ...s.thresholds.flatMap((t) => {
      const line = `  ${t.ok ? '✓' : '✗'} ${formatThreshold(t)}`;
      const w = windowLine(t);
      return w === undefined ? [line] : [line, `      ${w}`];
    }),
  ];
}

/** The end-of-run summary on a terminal: plain text, no colour codes, so it reads the same in CI logs. */
export const terminalReporter: Reporter = {
  name: 'terminal',
  render(s) {
    const out: string[] = [runLine(s), ''];
    out.push(...deviationText(s));
    if (s.preflight?.length)
      out.push('preflight:', ...s.preflight.map((p) => `  ${p.ok ? '✓' : '✗'} ${p.check}: ${p.detail}`), '');
    // An LLM run is judged by its tokens first: they lead, before the requests that carried them.
    const tokens = tokenRows(s);
    if (tokens.length) out.push(...tokenLines(s), ...textTable(TOKEN_HEADER, tokens), '');
    out.push(...textTable(OPERATION_HEADER, operationRows(s)));
    out.push('latency from the intended start (free of coordinated omission), all responses');
    const probes = probe4xxLine(s);
    if (probes !== undefined) out.push(probes);
    out.push('');
    out.push(`jobs: ${jobCountsLine(s)}`);
    const timings = timingRows(s);
    if (timings.length) out.push(...textTable(TIMING_HEADER, timings));
    out.push('');
    out.push(`transport errors: ${countsLine(s.errors)}`);
    if (s.run.iterationsCut) out.push(`iterations cut at the graceful stop: ${String(s.run.iterationsCut)}`);
    out.push(
      `dropped arrivals: ${s.dropped.total}${s.dropped.total ? ` (${countsLine(s.dropped.byFlow)})` : ''}`,
      ...connectionWaitLines(s),
    );
    out.push(...warmupLines(s), ...capLines(s), ...stallLines(s), ...generatorLines(s));
    if (s.webhooks.received)
      out.push(`webhooks received: ${s.webhooks.received} (answered ${countsLine(s.webhooks.byAnswer)})`);
    out.push(...exportLines(s.exports));
    out.push(...scalingTextLines(s));
    out.push('', coverageLine(s), ...violationLines(s), '', ...thresholdLines(s), '', ...verdictLines(s));
    return `${out.flatMap(terminalLines).join('\n')}\n`;
  },
};
