/**
 * The window part of a threshold: `p99(run) < 500ms over 30s` on the command line, or the
 * scenario's object form `{ threshold, window, abortOnFail, delayAbortEval }`. A window is whole
 * seconds (the per-second series is what windows are read from), 1 s or more.
 */
const OVER = /^(.*\S)\s+over\s+(\S.*?)\s*$/i;
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/;
const MS_PER: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Where a threshold came from, with the object form's fields (durations already in ms). */
export interface WindowFields {
  expression: string;
  /** The object form's `window`, ms. */
  windowMs?: number;
  abortOnFail?: boolean;
  /** The object form's `delayAbortEval`, ms. */
  delayAbortEvalMs?: number;
}

/** The expression without its window, the window in seconds, and the expression as reports name it. */
export interface WindowSplit {
  /** What the metric grammar reads: `p99(run) < 500ms`. */
  core: string;
  /** `p99(run) < 500ms over 30s`: the object form's window written in, so a summary re-reads it. */
  expression: string;
  windowS?: number;
}

function windowSeconds(ms: number, text: string): number | string {
  if (!(ms >= 1000) || ms % 1000 !== 0)
    return `a window is whole seconds, 1s or more (e.g. over 30s), not "${text}"`;
  return ms / 1000;
}

/** `30s`, `2m`, `1h`, `1500ms`: ms, or undefined when it is not a duration with its unit. */
export function durationMs(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m?.[1] || !m[2]) return undefined;
  return Number(m[1]) * (MS_PER[m[2]] ?? Number.NaN);
}

/** Splits off the window; a string is what is wrong with it. */
export function splitWindow(f: WindowFields): WindowSplit | string {
  const text = f.expression.trim();
  const over = OVER.exec(text);
  if (f.delayAbortEvalMs !== undefined && f.abortOnFail !== true)
    return 'delayAbortEval only applies with abortOnFail: true';
  if (f.delayAbortEvalMs !== undefined && !(f.delayAbortEvalMs >= 0))
    return 'delayAbortEval must be a duration of 0s or more';
  if (over?.[1] !== undefined && over[2] !== undefined) {
    if (f.windowMs !== undefined) return `the window is given twice ("over ${over[2]}" and window:)`;
    const ms = durationMs(over[2]);
    if (ms === undefined) return `cannot read the window "over ${over[2]}"; write e.g. over 30s or over 5m`;
    const windowS = windowSeconds(ms, over[2]);
    return typeof windowS === 'string' ? windowS : { core: over[1], expression: text, windowS };
  }
  if (f.windowMs === undefined) return { core: text, expression: text };
  const windowS = windowSeconds(f.windowMs, `${String(f.windowMs)} ms`);
  if (typeof windowS === 'string') return windowS;
  return { core: text, expression: `${text} over ${String(windowS)}s`, windowS };
}
