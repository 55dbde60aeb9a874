import { knownEntryLines, knownTitle, skippedLines } from './known-lines.js';
import type { Summary } from './summary.js';

/**
 * report.html's lists of known deviations (with what became of each entry) and skipped checks
 * (with why), the same lines as the other reports; nothing when the run had neither. `esc` is the
 * page's escaping.
 */
export function knownHtml(s: Summary, esc: (text: string) => string): string {
  const entries = knownEntryLines(s);
  const skipped = skippedLines(s);
  const list = (lines: readonly string[]): string =>
    `<ul>${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`;
  return [
    ...(entries.length ? [`<h3>${esc(knownTitle(s))}</h3>${list(entries)}`] : []),
    ...(skipped.length ? [`<h3>Skipped checks</h3>${list(skipped)}`] : []),
  ].join('\n');
}
