import type { Reporter } from './reporter.js';

/**
 * Indented JSON, except that arrays of plain values stay on one line: the per-second series would
 * otherwise put every number of a ten-minute run on its own line.
 */
export function readableJson(value: unknown, indent = ''): string {
  const next = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) return JSON.stringify(value);
    if (!value.length) return '[]';
    return `[\n${value.map((v) => `${next}${readableJson(v, next)}`).join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (!entries.length) return '{}';
    return `{\n${entries.map(([k, v]) => `${next}${JSON.stringify(k)}: ${readableJson(v, next)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** summary.json itself: the file every other report can be rebuilt from. */
export const jsonReporter: Reporter = {
  name: 'json',
  fileName: 'summary.json',
  render: (s) => `${readableJson(s)}\n`,
};
