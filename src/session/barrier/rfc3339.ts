/** RFC 3339 date-time with a zone (Z or ±hh:mm), as `date -u +%Y-%m-%dT%H:%M:%SZ` prints it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Epoch ms of an RFC 3339 instant, or undefined when `text` is not one. */
export function parseRfc3339(text: string): number | undefined {
  const t = text.trim();
  if (!RFC3339.test(t)) return undefined;
  const ms = Date.parse(t.replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : undefined;
}
