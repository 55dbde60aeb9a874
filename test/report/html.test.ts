import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/report/report-writer.js';
import type { Summary } from '../../src/report/summary.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';

/**
 * report.html in a real browser: Debian's Chromium driven by playwright-core. Missing Chromium is a
 * failure, not a skip: CI installs it (.ci/run), and a skipped browser test proves nothing.
 */
const CHROMIUM = '/usr/bin/chromium';

interface ChartBox {
  id: string;
  width: number;
  height: number;
  text: string;
}

/**
 * The fixture's series stretched to `length` seconds (the added seconds empty), to see how the
 * time axis of a long run is labelled.
 */
function stretched(s: Summary, length: number): Summary {
  const pad = <T>(a: readonly T[], fill: T): T[] => [
    ...a,
    ...Array.from({ length: length - a.length }, () => fill),
  ];
  const z = s.series;
  const ops = Object.fromEntries(
    Object.entries(z.ops).map(([op, o]) => [
      op,
      {
        requests: pad(o.requests, 0),
        latency: pad(o.latency, ''),
        p50: pad(o.p50, null),
        p99: pad(o.p99, null),
      },
    ]),
  );
  const finals = {
    COMPLETED: pad(z.finals.COMPLETED, 0),
    FAILED: pad(z.finals.FAILED, 0),
    CANCELLED: pad(z.finals.CANCELLED, 0),
    TIMED_OUT: pad(z.finals.TIMED_OUT, 0),
  };
  return {
    ...s,
    series: {
      ...z,
      length,
      requests: pad(z.requests, 0),
      r429: pad(z.r429, 0),
      errors: pad(z.errors, 0),
      busyUs: pad(z.busyUs, 0),
      submitted: pad(z.submitted, 0),
      dropped: pad(z.dropped, 0),
      finals,
      workers: pad(z.workers, null),
      queue: pad(z.queue, null),
      ops,
    },
  };
}

/**
 * Installed before the page's scripts: wraps the uPlot constructor the page defines so that each
 * chart's x-axis tick labels (what its `values` option returned at the last draw) are kept in
 * `window.__ticks[elementId]` for the test to read.
 */
const RECORD_TICKS = `window.__ticks = {};
let realUPlot;
Object.defineProperty(window, 'uPlot', {
  configurable: true,
  get() { return realUPlot; },
  set(U) {
    function Recording(opts, data, el) {
      const ax = opts.axes && opts.axes[0];
      if (ax && typeof ax.values === 'function') {
        const own = ax.values;
        ax.values = function (...args) { const r = own.apply(this, args); window.__ticks[el.id] = r; return r; };
      }
      return new U(opts, data, el);
    }
    Object.assign(Recording, U);
    realUPlot = Recording;
  },
});`;

interface LegendEntry {
  chart: string;
  label: string;
  value: string;
  border: string;
  fill: string;
}

const READ_LEGENDS = `[...document.querySelectorAll('.chart')].flatMap((c) => [...c.querySelectorAll('.u-legend .u-series')].map((row) => {
  const marker = row.querySelector('.u-marker');
  return { chart: c.id, label: row.querySelector('.u-label')?.textContent ?? '', value: row.querySelector('.u-value')?.textContent ?? '', border: marker ? marker.style.borderStyle : '', fill: marker ? marker.style.backgroundColor : '' };
}))`;

describe('report.html in headless Chromium', () => {
  let browser: Browser | undefined;
  let file = '';
  let longFile = '';

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: install it with "apt-get update && apt-get install -y chromium" (.ci/run does this)`,
      );
    }
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-html-'));
    await writeReports(fixtureSummary(), dir, { reporters: ['html'] });
    file = join(dir, 'report.html');
    const longDir = join(dir, 'long');
    await writeReports(stretched(fixtureSummary(), 1800), longDir, { reporters: ['html'] });
    longFile = join(longDir, 'report.html');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('draws every chart with no console errors, no CSP violations and no network requests', async () => {
    if (!browser) throw new Error('browser did not start');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const url = pathToFileURL(file).href;
    const consoleErrors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (r.url() !== url) requests.push(r.url());
    });
    // Installed before any page script runs, so a blocked inline script or style is seen too.
    await page.addInitScript({
      content: `window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`,
    });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('.uplot canvas');

    const charts = await page.evaluate<ChartBox[]>(`[...document.querySelectorAll('.chart')].map((e) => {
      const r = e.querySelector('.uplot canvas')?.getBoundingClientRect();
      return { id: e.id, width: r ? r.width : 0, height: r ? r.height : 0, text: e.textContent.slice(0, 80) };
    })`);
    const expectedCharts = charts.map((c) => c.id);
    const csp = await page.evaluate<string[]>('window.__csp');
    const hasCspMeta = await page.evaluate<string>(
      `document.querySelector('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')`,
    );
    await page.close();

    expect(expectedCharts).toEqual(
      expect.arrayContaining([
        'chart-throughput',
        'chart-latency',
        'chart-jobs',
        'chart-workers',
        'chart-pct-e2e',
        'chart-delay',
        'chart-execution',
        'chart-pct-run',
        'chart-pct-status',
        'chart-scaling',
      ]),
    );
    for (const c of charts) {
      expect(c.width, `${c.id}: ${c.text}`).toBeGreaterThan(100);
      expect(c.height, c.id).toBeGreaterThan(100);
    }
    expect(consoleErrors).toEqual([]);
    expect(csp).toEqual([]);
    expect(requests).toEqual([]);
    expect(hasCspMeta).toMatch(/default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-/);
    expect(hasCspMeta).not.toMatch(/unsafe/);
  });

  it('shows the violations with their evidence and repro commands, escaped', async () => {
    if (!browser) throw new Error('browser did not start');
    const page = await browser.newPage();
    await page.goto(pathToFileURL(file).href);
    const text = await page.textContent('body');
    await page.close();
    expect(text).toContain('transition.backwards');
    expect(text).toContain('curl -sS -X GET -H "Authorization: Bearer $JOBSTORM_API_KEY"');
    expect(text).toContain('server answered 500 (<internal> & "quoted")');
    expect(text).toContain('p99(run) < 500ms');
  });

  it('reads at a glance: whole-second ticks, no "--" in any legend, p50 told from p99, job counts equal to the tally', async () => {
    if (!browser) throw new Error('browser did not start');
    const summary = fixtureSummary();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.addInitScript({ content: RECORD_TICKS });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForSelector('.uplot canvas');
    const ticks = await page.evaluate<Record<string, string[]>>('window.__ticks');
    const idle = await page.evaluate<LegendEntry[]>(READ_LEGENDS);
    const legendText = await page.evaluate<string>(
      `[...document.querySelectorAll('.u-legend')].map((l) => l.textContent).join(' | ')`,
    );
    // Hover the middle of the latency chart: values appear there, still without "--".
    const over = page.locator('#chart-latency .u-over');
    await over.scrollIntoViewIfNeeded();
    const box = await over.boundingBox();
    if (!box) throw new Error('no latency plot area');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction(
      `document.querySelector('#chart-latency .u-legend .u-value').textContent !== ''`,
      undefined,
      { timeout: 5000 },
    );
    const hovered = (await page.evaluate<LegendEntry[]>(READ_LEGENDS)).filter(
      (e) => e.chart === 'chart-latency',
    );
    const hoveredText = await page.evaluate<string>(
      `document.querySelector('#chart-latency .u-legend').textContent`,
    );
    const jobsLine = await page.textContent('body');
    await page.close();

    // Ticks: every time chart is labelled in whole seconds of the run, one second apart at this width.
    const timeCharts = ['chart-throughput', 'chart-latency', 'chart-jobs', 'chart-workers'];
    for (const id of timeCharts) {
      const labels = ticks[id] ?? [];
      expect(labels.length, id).toBeGreaterThan(3);
      for (const l of labels) expect(l, id).toMatch(/^\d+s$/);
      const secs = labels.map((l) => Number(l.slice(0, -1)));
      for (let i = 1; i < secs.length; i++)
        expect(secs[i], `${id} ${labels.join(' ')}`).toBe((secs[i - 1] ?? 0) + 1);
    }
    expect(ticks['chart-throughput']?.[0]).toBe('0s');

    // No "--" anywhere in a legend, idle or hovered; idle values are blank, hovered ones are not.
    expect(idle.length).toBeGreaterThan(20);
    expect(legendText).not.toContain('--');
    expect(hoveredText).not.toContain('--');
    for (const e of idle) expect(e.value, `${e.chart} ${e.label}`).toBe('');
    expect(hovered.find((e) => e.label === 'run time')?.value).toMatch(/^t\+\d+s \(\d\d:\d\d:\d\d UTC\)$/);
    expect(hovered.filter((e) => e.value !== '').length).toBeGreaterThan(1);

    // p50 and p99: labelled so, and drawn differently in the legend marker itself.
    const latency = idle.filter((e) => e.chart === 'chart-latency');
    for (const op of Object.keys(summary.series.ops)) {
      const p50 = latency.find((e) => e.label === `${op} p50`);
      const p99 = latency.find((e) => e.label === `${op} p99`);
      expect(p50?.border, op).toBe('dashed');
      expect(p99?.border, op).toBe('solid');
      expect(p50?.fill, op).not.toBe(p99?.fill);
    }

    // The jobs chart's legend carries the end-of-run tally, which the page's text states too.
    const jobs = idle.filter((e) => e.chart === 'chart-jobs' && e.label !== 'run time').map((e) => e.label);
    const tally = (['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const).map(
      (st) => `${st} (${String(summary.jobs.byState[st])})`,
    );
    expect(jobs).toEqual([`submitted (${String(summary.jobs.submitted)})`, ...tally]);
    for (const st of ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const)
      expect(jobsLine).toContain(`${st} ${String(summary.jobs.byState[st])}`);
  });

  it('labels the time axis of a long run in whole minutes', async () => {
    if (!browser) throw new Error('browser did not start');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.addInitScript({ content: RECORD_TICKS });
    await page.goto(pathToFileURL(longFile).href, { waitUntil: 'load' });
    await page.waitForSelector('.uplot canvas');
    const ticks = await page.evaluate<Record<string, string[]>>('window.__ticks');
    const legendText = await page.evaluate<string>(
      `[...document.querySelectorAll('.u-legend')].map((l) => l.textContent).join(' | ')`,
    );
    await page.close();
    const labels = ticks['chart-throughput'] ?? [];
    expect(labels.length).toBeGreaterThan(3);
    for (const l of labels) expect(l).toMatch(/^(0s|\d+m)$/);
    expect(labels).toContain('10m');
    expect(legendText).not.toContain('--');
  });

  it('draws the scaling chart with each scale-up episode marked, beside the scaling figures', async () => {
    if (!browser) throw new Error('browser did not start');
    const summary = fixtureSummary();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForSelector('#chart-scaling .uplot canvas');
    const marks = await page.evaluate<string | null>(
      `document.querySelector('#chart-scaling .uplot').getAttribute('data-marks')`,
    );
    const labels = await page.evaluate<string[]>(
      `[...document.querySelectorAll('#chart-scaling .u-legend .u-series .u-label')].map((e) => e.textContent)`,
    );
    const text = (await page.textContent('body')) ?? '';
    await page.close();
    expect(marks).toBe(String(summary.scaling?.figures.episodes.length));
    expect(Number(marks)).toBeGreaterThan(0);
    expect(labels).toEqual([
      'run time',
      'jobs in queue',
      'workers running',
      'workers idle',
      'jobs submitted/s (right axis)',
    ]);
    expect(text).toContain('scale-up lag3 scale-ups: p50 1.00s');
    expect(text).toContain("not measured: the target's /health has no workers.initializing");
  });
});
