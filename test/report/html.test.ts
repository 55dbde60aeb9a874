import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/report/report-writer.js';
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

describe('report.html in headless Chromium', () => {
  let browser: Browser | undefined;
  let file = '';

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: install it with "apt-get update && apt-get install -y chromium" (.ci/run does this)`);
    }
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-html-'));
    await writeReports(fixtureSummary(), dir, { reporters: ['html'] });
    file = join(dir, 'report.html');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
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
    const hasCspMeta = await page.evaluate<string>(`document.querySelector('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')`);
    await page.close();

    expect(expectedCharts).toEqual(
      expect.arrayContaining(['chart-throughput', 'chart-latency', 'chart-jobs', 'chart-workers', 'chart-pct-e2e', 'chart-delay', 'chart-execution', 'chart-pct-run', 'chart-pct-status']),
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
});
