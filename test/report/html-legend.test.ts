import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCapacityReports } from '../../src/capacity/index.js';
import { CHECK_CATALOG } from '../../src/check/catalog.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { writeReports } from '../../src/report/report-writer.js';
import type { Summary } from '../../src/report/summary.js';
import { fixtureCapacityReport } from '../capacity/capacity-fixture.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';

/**
 * Issue 34, report.html and capacity.html in Chromium: legends list only real series, the
 * requests-in-flight axis covers its series, timing rows without samples say so, the checks table
 * says what each check catches, and the capacity workers chart reads in run time.
 */
const CHROMIUM = '/usr/bin/chromium';
const EMPTY = { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 };

/** The fixture with 8 to 17 requests in flight (the issue's range), a timing without samples and descriptions. */
function issueSummary(): Summary {
  const s = fixtureSummary();
  s.series.busyUs = s.series.busyUs.map((_, i) => (8 + (i % 10)) * 1_000_000);
  s.jobs.firstChunk = { ...s.jobs.firstChunk, percentiles: EMPTY };
  s.jobs.e2e.TIMED_OUT = { ...s.jobs.e2e.TIMED_OUT, percentiles: EMPTY };
  s.checkDescriptions = Object.fromEntries(CHECK_CATALOG.map((c) => [c.id, c.description]));
  return s;
}

/** Keeps every uPlot instance by its element id, and its x tick labels (drawn on the canvas). */
const RECORD_PLOTS = `window.__plots = {}; window.__ticks = {};
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
      const u = new U(opts, data, el); window.__plots[el.id] = u; return u;
    }
    Object.assign(Recording, U);
    realUPlot = Recording;
  },
});`;

interface Entry {
  chart: string;
  label: string;
  value: string;
  marker: number;
}

/** Legend entries a reader sees (displayed), with the width of their swatch. */
const VISIBLE_LEGENDS = `[...document.querySelectorAll('.chart')].flatMap((c) => [...c.querySelectorAll('.u-legend .u-series')]
  .filter((row) => getComputedStyle(row).display !== 'none')
  .map((row) => {
    const label = row.querySelector('.u-label');
    const marker = row.querySelector('.u-marker');
    return {
      chart: c.id,
      label: label && getComputedStyle(label.parentElement).display !== 'none' ? label.textContent : '',
      value: row.querySelector('.u-value')?.textContent ?? '',
      marker: marker ? marker.getBoundingClientRect().width : 0,
    };
  }))`;

async function open(browser: Browser, file: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.addInitScript({ content: RECORD_PLOTS });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForSelector('.uplot canvas');
  return page;
}

async function hover(page: Page, chart: string): Promise<Entry[]> {
  const over = page.locator(`#${chart} .u-over`);
  await over.scrollIntoViewIfNeeded();
  const box = await over.boundingBox();
  if (!box) throw new Error(`no plot area in ${chart}`);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.waitForFunction(`document.querySelector('#${chart} .uplot').classList.contains('u-hovering')`);
  return (await page.evaluate<Entry[]>(VISIBLE_LEGENDS)).filter((e) => e.chart === chart);
}

describe('report.html and capacity.html, as issue 34 found them', () => {
  let browser: Browser | undefined;
  let dir = '';

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (.ci/run installs it)`);
    dir = mkdtempSync(join(tmpdir(), 'jobstorm-html-legend-'));
    await writeReports(issueSummary(), dir, { reporters: ['html'] });
    await writeCapacityReports(fixtureCapacityReport(), dir);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('every legend entry a reader sees is a series with its swatch; the x position shows only on hover, as a bare readout', async () => {
    if (!browser) throw new Error('browser did not start');
    for (const [file, hovered] of [
      ['report.html', 'chart-throughput'],
      ['capacity.html', 'chart-workers'],
    ] as const) {
      const page = await open(browser, join(dir, file));
      const idle = await page.evaluate<Entry[]>(VISIBLE_LEGENDS);
      const onHover = await hover(page, hovered);
      await page.close();
      expect(idle.length, file).toBeGreaterThan(5);
      for (const e of idle) {
        expect(e.marker, `${file} ${e.chart} "${e.label}"`).toBeGreaterThan(0);
        expect(['run time', 'percentile', 'from', 'time', 'step at'], `${file} ${e.chart}`).not.toContain(
          e.label,
        );
      }
      const [readout, ...series] = onHover;
      expect(readout?.label, file).toBe('');
      expect(readout?.value, file).toMatch(/^t\+\d+(m\d*)?s?/);
      for (const e of series) expect(e.marker, `${file} ${e.label}`).toBeGreaterThan(0);
    }
  });

  it('the requests-in-flight axis starts at 0 and covers its series (8 to 17 here, not 0 to 1)', async () => {
    if (!browser) throw new Error('browser did not start');
    const page = await open(browser, join(dir, 'report.html'));
    const r = await page.evaluate<{ min: number; max: number; label: string; values: number[] }>(
      `(() => { const u = window.__plots['chart-throughput']; const i = u.series.findIndex((s) => s.scale === 'r');
        return { min: u.scales.r.min, max: u.scales.r.max, label: u.series[i].label, values: u.data[i] }; })()`,
    );
    await page.close();
    expect(r.label).toBe('requests in flight (mean, right axis)');
    expect(Math.max(...r.values)).toBe(17);
    expect(r.min).toBe(0);
    expect(r.max).toBeGreaterThanOrEqual(17);
    expect(r.max).toBeLessThan(17 * 1.5);
  });

  it('timing rows without samples show — rather than 0µs; the checks table says what each check catches', async () => {
    if (!browser) throw new Error('browser did not start');
    const page = await open(browser, join(dir, 'report.html'));
    const rows = await page.evaluate<string[][]>(
      `[...document.querySelectorAll('table')].find((t) => t.querySelector('th')?.textContent === 'timing')
        .querySelectorAll('tbody tr').values().map((tr) => [...tr.children].map((td) => td.textContent)).toArray()`,
    );
    const checks = await page.evaluate<{ header: string[]; rows: string[][] }>(
      `(() => { const t = [...document.querySelectorAll('table')].find((x) => x.querySelector('th')?.textContent === 'check' && x.textContent.includes('observations judged'));
        return { header: [...t.querySelectorAll('th')].map((th) => th.textContent), rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)) }; })()`,
    );
    await page.close();
    const empty = rows.filter((r) => r[1] === '0');
    expect(empty.map((r) => r[0])).toEqual(['first stream chunk', 'end-to-end TIMED_OUT']);
    for (const r of empty) expect(r.slice(2)).toEqual(['—', '—', '—', '—', '—']);
    for (const r of rows.filter((x) => x[1] !== '0')) expect(r.slice(2)).not.toContain('—');
    expect(checks.header).toEqual(['check', 'what it catches', 'observations judged', 'result']);
    const described = new Map(checks.rows.map((r) => [r[0], r[1]]));
    for (const id of ['server.error', 'transition.backwards', 'stream.after-final'])
      expect(described.get(id), id).toBe(CHECK_CATALOG.find((c) => c.id === id)?.description);
  });

  it("capacity.html's workers chart is in run time, like every other time chart", async () => {
    if (!browser) throw new Error('browser did not start');
    const page = await open(browser, join(dir, 'capacity.html'));
    const x = await page.evaluate<{ time: boolean; min: number; ticks: string[] }>(
      `(() => { const u = window.__plots['chart-workers']; return { time: u.scales.x.time, min: u.scales.x.min, ticks: window.__ticks['chart-workers'] }; })()`,
    );
    await page.close();
    expect(x.time).toBe(false);
    // Seconds since the search started, not epoch seconds.
    expect(x.min).toBeLessThan(24 * 3600);
    expect(x.ticks.length).toBeGreaterThan(3);
    for (const t of x.ticks) expect(t).toMatch(/^(\d+m)?(\d+s)?$/);
  });

  it('every y axis is as wide as its widest tick label, so a 10,000 ms tick does not run into the "ms" label (issue 47)', async () => {
    if (!browser) throw new Error('browser did not start');
    const slow = issueSummary();
    const e2e = LatencyHistogram.create();
    for (let ms = 200; ms <= 14_000; ms += 200) e2e.recordMs(ms);
    slow.jobs.e2e.COMPLETED = { ...slow.jobs.e2e.COMPLETED, histogram: e2e.encode() };
    const slowDir = mkdtempSync(join(tmpdir(), 'jobstorm-html-axes-'));
    await writeReports(slow, slowDir, { reporters: ['html'] });
    for (const file of [join(slowDir, 'report.html'), join(dir, 'capacity.html')]) {
      const page = await open(browser, file);
      const axes = await page.evaluate<{ chart: string; widest: number; room: number; ticks: string[] }[]>(
        `Object.entries(window.__plots).flatMap(([chart, u]) => u.axes.slice(1).filter((a) => a.show !== false && a._values).map((a) => {
          u.ctx.save(); u.ctx.font = a.font[0];
          const widest = Math.max(0, ...a._values.filter((v) => v != null).map((v) => u.ctx.measureText(String(v)).width)) / devicePixelRatio;
          u.ctx.restore();
          return { chart, widest, room: a._size - a.ticks.size - a.gap, ticks: a._values };
        }))`,
      );
      await page.close();
      expect(axes.length, file).toBeGreaterThan(3);
      const e2eTicks = axes.find((a) => a.chart === 'chart-pct-e2e')?.ticks ?? [];
      if (file.endsWith('report.html')) expect(e2eTicks).toContain('10,000');
      for (const a of axes) expect(a.widest, `${a.chart}: ${a.ticks.join(' ')}`).toBeLessThanOrEqual(a.room);
    }
  });
});
