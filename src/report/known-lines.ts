import type { KnownDeviation, KnownOutcome } from '../core/known-deviation.js';
import type { Summary, ViolationSummary } from './summary.js';

/*
 * Known deviations and skipped checks in words, the same in every report (issue 53): a known finding
 * is shown and counted, never hidden; an entry that expired or matched nothing says so.
 */

const plural = (n: number, word: string): string => `${String(n)} ${word}${n === 1 ? '' : 's'}`;

/** Findings of the id that an entry accepted. */
export function knownCount(v: Pick<ViolationSummary, 'known'>): number {
  return v.known ?? 0;
}

/** Findings of the id that no entry in force accepted: these fail the run as ever. */
export function newCount(v: Pick<ViolationSummary, 'count' | 'known'>): number {
  return v.count - knownCount(v);
}

/** "request.unknown-job (status, 200, message /FAILED/)": what an entry matches. */
export function entryLabel(e: KnownDeviation): string {
  const parts = [
    ...(e.operation === undefined ? [] : [e.operation]),
    ...(e.status === undefined ? [] : [String(e.status)]),
    ...(e.message === undefined ? [] : [`message /${e.message}/`]),
  ];
  return parts.length ? `${e.check} (${parts.join(', ')})` : e.check;
}

/** "why — who, until 2026-03-31". */
function provenance(e: KnownDeviation): string {
  return `${e.why} — ${e.who}${e.expires === undefined ? '' : `, until ${e.expires}`}`;
}

/** Error findings no entry accepted: what fails the run. */
export function newErrors(s: Pick<Summary, 'violations'>): number {
  return s.violations.filter((v) => v.severity === 'error').reduce((n, v) => n + newCount(v), 0);
}

/**
 * "2 known deviations (3 findings), 0 new": entries that accepted findings, the findings they
 * accepted, and the error findings that are new. Undefined for a run without known deviations.
 */
export function knownHeadline(s: Pick<Summary, 'violations' | 'known'>): string | undefined {
  if (!s.known) return undefined;
  const matched = s.known.entries.filter((e) => e.state === 'matched').length;
  const findings = s.violations.reduce((n, v) => n + knownCount(v), 0);
  return `${plural(matched, 'known deviation')} (${plural(findings, 'finding')}), ${String(newErrors(s))} new`;
}

/** Why an entry did not accept anything, as a verdict reason; undefined for one that did. */
function lapseReason(e: KnownOutcome, file: string): string | undefined {
  if (e.state === 'expired')
    return e.findings > 0
      ? `known deviation ${entryLabel(e)} expired (${String(e.expires)}): its ${plural(e.findings, 'finding')} count as new again`
      : `known deviation ${entryLabel(e)} expired (${String(e.expires)}) and matched nothing: delete it from ${file}`;
  if (e.state === 'unseen')
    return `known deviation ${entryLabel(e)} no longer seen: it matched nothing in this run; delete it from ${file}`;
  return undefined;
}

/** The verdict's reasons about entries that expired or matched nothing. */
export function knownReasons(s: Pick<Summary, 'known'>): string[] {
  const known = s.known;
  if (!known) return [];
  return known.entries.flatMap((e) => lapseReason(e, known.file) ?? []);
}

/** One line per entry: what it accepted, or why it accepted nothing. */
export function knownEntryLines(s: Pick<Summary, 'known'>): string[] {
  return (s.known?.entries ?? []).map((e) => {
    const said = provenance(e);
    if (e.state === 'matched') return `known ${entryLabel(e)} ×${String(e.findings)}: ${said}`;
    if (e.state === 'expired')
      return `expired ${entryLabel(e)}${e.findings > 0 ? ` ×${String(e.findings)}, now new` : ', matched nothing'}: ${said}`;
    return `no longer seen ${entryLabel(e)}: matched nothing, delete it: ${said}`;
  });
}

/** One line per skipped check id: "auth.missing-key-accepted: why". */
export function skippedLines(s: Pick<Summary, 'skipped'>): string[] {
  return Object.entries(s.skipped ?? {}).map(([id, why]) => `${id}: ${why}`);
}

/** The heading of the known list, naming the file the entries came from; `lead` is its first word. */
export function knownTitle(s: Pick<Summary, 'known'>, lead = 'Known'): string {
  return `${lead} deviations (${s.known?.file ?? ''})`;
}

/** A violation row's count: "3", or "3 (2 known)", or "2 known" when every finding was known. */
export function violationCountText(v: Pick<ViolationSummary, 'count' | 'known'>): string {
  const known = knownCount(v);
  if (known === 0) return String(v.count);
  return known === v.count ? `${String(known)} known` : `${String(v.count)} (${String(known)} known)`;
}
