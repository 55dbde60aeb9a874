import { isAccepted } from '../core/known-deviation.js';
import type { Violation } from '../core/violation.js';
import type { Summary } from './summary.js';

/** The heading every report gives the list. */
export const DEVIATIONS_TITLE = 'This target differs from the contract';

/** Ids reported once per operation: each example is a deviation of its own (one per operation). */
const PER_OPERATION = new Set(['route.missing', 'request.method']);

/** A message cut to one readable line: the detail is in the per-check section below. */
const MESSAGE_CHARS = 220;

/** One deviation: the rule, what was seen, and the first record that shows it. */
export interface Deviation {
  id: string;
  op?: string;
  message: string;
  /** `seq` of the exchanged record cited. */
  seq?: number;
  /** "POST /status/job-1 → 404", when the record was a request. */
  exchange?: string;
  warning: boolean;
  /** A known deviation (`--known`): shown as ever, marked, failing nothing. */
  known: boolean;
}

function deviationOf(id: string, e: Violation, warning: boolean): Deviation {
  // What jobstorm did about it (stopped sending, adapted) is the detail's, not the deviation's.
  const said = e.message.split('; jobstorm ')[0] ?? e.message;
  const text = said.length > MESSAGE_CHARS ? `${said.slice(0, MESSAGE_CHARS - 1)}…` : said;
  const request = e.evidence.request;
  const exchange =
    request === undefined
      ? undefined
      : `${request}${e.evidence.status === undefined ? '' : ` → ${String(e.evidence.status)}`}`;
  return {
    id,
    op: e.op,
    message: text,
    seq: e.evidence.seq,
    exchange,
    warning,
    known: isAccepted(e),
  };
}

/**
 * What a partial or different server does otherwise, one entry per deviation (a check id, or a
 * missing route or method per operation), each with its first record: the list a report leads with,
 * above the per-check detail. Empty when there were no findings.
 */
export function deviations(s: Pick<Summary, 'violations'>): Deviation[] {
  const out: Deviation[] = [];
  for (const v of s.violations) {
    const warning = v.severity !== 'error';
    if (PER_OPERATION.has(v.id)) {
      const seen = new Set<string>();
      for (const e of v.examples) {
        const key = e.op ?? '';
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(deviationOf(v.id, e, warning));
      }
    } else {
      const first = v.examples[0];
      if (first) out.push(deviationOf(v.id, first, warning));
    }
  }
  return out;
}

/** "request.method (status): … — record 12: GET /status/x → 405", one plain line per deviation. */
export function deviationLine(d: Deviation): string {
  const what = `${d.id}${d.op === undefined || d.id.endsWith(`.${d.op}`) ? '' : ` (${d.op})`}${d.warning ? ' [warning]' : ''}${d.known ? ' [known]' : ''}`;
  const where =
    d.seq === undefined
      ? ''
      : ` — record ${String(d.seq)}${d.exchange === undefined ? '' : `: ${d.exchange}`}`;
  return `${what}: ${d.message}${where}`;
}

/** The section as plain lines (terminal, Markdown list items): none when the target kept the contract. */
export function deviationLines(s: Pick<Summary, 'violations'>): string[] {
  return deviations(s).map(deviationLine);
}

/** The terminal's section: a heading and an indented list, then a blank line; nothing without findings. */
export function deviationText(s: Pick<Summary, 'violations'>): string[] {
  const lines = deviationLines(s);
  return lines.length ? [`${DEVIATIONS_TITLE}:`, ...lines.map((l) => `  - ${l}`), ''] : [];
}

/** summary.md's section, as a level-3 heading and a list. */
export function deviationMarkdown(s: Pick<Summary, 'violations'>): string[] {
  const lines = deviationLines(s);
  return lines.length ? [`### ${DEVIATIONS_TITLE}`, '', ...lines.map((l) => `- ${l}`), ''] : [];
}

/** report.html's section; `esc` is the page's escaping. */
export function deviationHtml(s: Pick<Summary, 'violations'>, esc: (text: string) => string): string {
  const lines = deviationLines(s);
  if (!lines.length) return '';
  return `<h2>${esc(DEVIATIONS_TITLE)}</h2><ul class="deviations">${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`;
}
