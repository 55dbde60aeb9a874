import { formatMs } from './format.js';
import type { TimingSummary, TokenGroupSummary } from './summary.js';

/*
 * TTFT of jobs read through `/stream`, decomposed (issue 48): for each percentile, the queue wait
 * (`delayTime`) — split into the time workers were initializing (the job's cold start) and the rest
 * when the `/health` samples could tell — and the time from leaving the queue to the first token,
 * stacked. Each part is its own percentile over the jobs, so a bar's parts need not add up to TTFT's
 * percentile (the line under the chart says so). Inline SVG: the report stays one file that needs
 * no script here.
 */
const LEVELS = ['p50', 'p90', 'p95', 'p99'] as const;
const WIDTH = 560;
const LABEL = 48;
const BAR = 18;

interface Part {
  name: string;
  color: string;
  timing: TimingSummary;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The stacked parts: the queue wait whole, or cold and warm when the split is known. */
function partsOf(g: TokenGroupSummary): Part[] | undefined {
  const { queue, toFirstAfterQueue: rest, queueCold: cold, queueWarm: warm } = g;
  if (queue === undefined || rest === undefined || queue.percentiles.count === 0) return undefined;
  const toFirst: Part = { name: 'queue → first token', color: '#fb8500', timing: rest };
  if (cold === undefined || warm === undefined)
    return [{ name: 'queue wait (delayTime)', color: '#8c959f', timing: queue }, toFirst];
  return [
    { name: 'queue wait, warm', color: '#8c959f', timing: warm },
    { name: 'queue wait, cold start', color: '#0969da', timing: cold },
    toFirst,
  ];
}

/** The chart for one group with a queue split, or '' without one. */
export function ttftStackHtml(g: TokenGroupSummary): string {
  const parts = partsOf(g);
  if (parts === undefined) return '';
  const sum = (level: (typeof LEVELS)[number]): number =>
    parts.reduce((n, p) => n + p.timing.percentiles[level], 0);
  const total = Math.max(...LEVELS.map(sum), g.ttft.percentiles.max, 1);
  const scale = (WIDTH - LABEL - 120) / total;
  const rows = LEVELS.map((level, i) => {
    const y = i * (BAR + 8);
    let x = LABEL;
    const rects = parts.map((p) => {
      const w = p.timing.percentiles[level] * scale;
      const rect = `<rect x="${x.toFixed(1)}" y="${String(y)}" width="${w.toFixed(1)}" height="${String(BAR)}" fill="${p.color}"/>`;
      x += w;
      return rect;
    });
    const said = parts.map((p) => `${p.name} ${formatMs(p.timing.percentiles[level])}`).join(' + ');
    const text = `${said} (TTFT ${level} ${formatMs(g.ttft.percentiles[level])})`;
    return `<g><title>${esc(text)}</title><text x="0" y="${String(y + 13)}">${level}</text>${rects.join('')}<text x="${(x + 6).toFixed(1)}" y="${String(y + 13)}">${esc(formatMs(g.ttft.percentiles[level]))}</text></g>`;
  }).join('');
  const height = LEVELS.length * (BAR + 8);
  const legend = parts
    .map((p) => `<span style="color:${p.color}">■</span> ${esc(p.name)}`)
    .join(' · ');
  const count = String(g.queue?.percentiles.count ?? 0);
  return `<figure class="ttft-stack"><svg role="img" aria-label="TTFT through the queue, decomposed" width="${String(WIDTH)}" height="${String(height)}" font-size="12">${rows}</svg><figcaption class="meta">${legend}; each part is its own percentile over the ${count} jobs, so the parts need not add up to TTFT's, given at each bar's end.</figcaption></figure>`;
}
