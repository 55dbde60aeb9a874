import { formatMs } from './format.js';
import type { TokenGroupSummary } from './summary.js';

/**
 * TTFT of jobs read through `/stream`, decomposed (issue 48): for each percentile, the queue wait
 * (`delayTime`) and the time from leaving the queue to the first token, stacked. Each part is its
 * own percentile over the jobs, so a bar's two parts need not add up to TTFT's percentile (the
 * line under the chart says so). Inline SVG: the report stays one file that needs no script here.
 */
const LEVELS = ['p50', 'p90', 'p95', 'p99'] as const;
const WIDTH = 560;
const LABEL = 48;
const BAR = 18;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The chart for one group with a queue split, or '' without one. */
export function ttftStackHtml(g: TokenGroupSummary): string {
  const queue = g.queue?.percentiles;
  const rest = g.toFirstAfterQueue?.percentiles;
  if (queue === undefined || rest === undefined || queue.count === 0) return '';
  const total = Math.max(...LEVELS.map((l) => queue[l] + rest[l]), g.ttft.percentiles.max, 1);
  const scale = (WIDTH - LABEL - 120) / total;
  const rows = LEVELS.map((level, i) => {
    const y = i * (BAR + 8);
    const q = queue[level] * scale;
    const r = rest[level] * scale;
    const text = `queue ${formatMs(queue[level])} + to first token ${formatMs(rest[level])} (TTFT ${level} ${formatMs(g.ttft.percentiles[level])})`;
    return `<g><title>${esc(text)}</title><text x="0" y="${String(y + 13)}">${level}</text><rect x="${String(LABEL)}" y="${String(y)}" width="${q.toFixed(1)}" height="${String(BAR)}" fill="#8c959f"/><rect x="${(LABEL + q).toFixed(1)}" y="${String(y)}" width="${r.toFixed(1)}" height="${String(BAR)}" fill="#fb8500"/><text x="${(LABEL + q + r + 6).toFixed(1)}" y="${String(y + 13)}">${esc(formatMs(g.ttft.percentiles[level]))}</text></g>`;
  }).join('');
  const height = LEVELS.length * (BAR + 8);
  return `<figure class="ttft-stack"><svg role="img" aria-label="TTFT through the queue, decomposed" width="${String(WIDTH)}" height="${String(height)}" font-size="12">${rows}</svg><figcaption class="meta"><span style="color:#8c959f">■</span> queue wait (delayTime) · <span style="color:#fb8500">■</span> queue → first token; each part is its own percentile over the ${String(queue.count)} jobs, so the parts need not add up to TTFT's, given at each bar's end.</figcaption></figure>`;
}
