import { resolutionOfMetric } from '../metrics/timing-resolution.js';
import type { ThresholdResult, ThresholdUnit } from './summary.js';

/**
 * Human units for milliseconds: 850µs, 12.3ms, 1.24s, 2m05s. With a `resolutionMs` of 1 or more (a
 * timing the service reports in whole ms) no digit finer than it is shown: 0ms, <1ms, 12ms.
 */
export function formatMs(ms: number, resolutionMs = 0): string {
  if (resolutionMs >= 1 && ms < 1000)
    return ms > 0 && ms < resolutionMs ? `<${String(resolutionMs)}ms` : `${String(Math.round(ms))}ms`;
  if (ms < 1) return `${Math.round(ms * 1000)}µs`;
  if (ms < 10) return `${ms.toFixed(2)}ms`;
  if (ms < 100) return `${ms.toFixed(1)}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms - minutes * 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

export function formatPercent(fraction: number): string {
  const p = fraction * 100;
  return `${p === 0 || p >= 10 ? p.toFixed(1) : p.toFixed(2)}%`;
}

export function formatRate(perSecond: number): string {
  return perSecond >= 100 ? perSecond.toFixed(0) : perSecond.toFixed(1);
}

/** A value in its unit; `resolutionMs` (resolutionOfMetric) keeps a whole-ms timing in whole ms. */
export function formatValue(value: number | null, unit: ThresholdUnit, resolutionMs = 0): string {
  if (value === null) return 'no data';
  switch (unit) {
    case 'ms':
      return formatMs(value, resolutionMs);
    case 'ratio':
      return formatPercent(value);
    case 'rps':
      return `${formatRate(value)}/s`;
    case 'count':
      return String(Math.round(value * 1000) / 1000);
  }
}

/** A threshold's value as reports show it: a figure not measured says so and why. */
export function thresholdValueText(
  t: Pick<ThresholdResult, 'expression' | 'value' | 'unit' | 'notEvaluated'>,
): string {
  if (t.value === null && t.notEvaluated !== undefined) return `not evaluated: ${t.notEvaluated}`;
  return formatValue(t.value, t.unit, resolutionOfMetric(t.expression));
}

export function formatThreshold(t: ThresholdResult): string {
  return `${t.expression}  (${t.value === null && t.notEvaluated !== undefined ? '' : 'value '}${thresholdValueText(t)})`;
}

/** Plain-text columns: first column left-aligned, the rest right-aligned. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** One line of a Markdown table, with pipes in cells escaped. */
export function markdownRow(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replace(/\|/g, '\\|').replace(/\n/g, ' ')).join(' | ')} |`;
}

export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align?: readonly ('l' | 'r')[],
): string[] {
  const sep = header.map((_, i) => ((align?.[i] ?? (i === 0 ? 'l' : 'r')) === 'r' ? '---:' : '---'));
  return [markdownRow(header), `| ${sep.join(' | ')} |`, ...rows.map(markdownRow)];
}

/** Control characters XML 1.0 forbids: below U+0020 but tab, line feed and carriage return. */
function forbiddenInXml(code: number): boolean {
  return code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d;
}

/** The text without the characters XML 1.0 forbids; a string with none (the rule) is returned as is. */
function withoutXmlControls(text: string): string {
  let i = 0;
  while (i < text.length && !forbiddenInXml(text.charCodeAt(i))) i++;
  if (i === text.length) return text;
  let kept = text.slice(0, i);
  for (; i < text.length; i++) if (!forbiddenInXml(text.charCodeAt(i))) kept += text.charAt(i);
  return kept;
}

/** Escapes text for XML and HTML content and attribute values; drops characters XML 1.0 forbids. */
export function escapeXml(text: string): string {
  return withoutXmlControls(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
