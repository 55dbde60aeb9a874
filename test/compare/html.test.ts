import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeComparison } from '../../src/compare/compare-writer.js';
import { BASELINE_FILE, CURRENT_FILE, fixture, fixtureComparison } from './fixtures/compare-fixture.js';

/**
 * compare.html in a real browser, as report.html is tested: Debian's Chromium driven by
 * playwright-core. Missing Chromium is a failure, not a skip.
 */
const CHROMIUM = '/usr/bin/chromium';

interface ChartBox {
  id: string;
  width: number;
  height: number;
  text: string;
}

describe('compare.html in headless Chromium', () => {
  let browser: Browser | undefined;
  let file = '';

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: install it with "apt-get update && apt-get install -y chromium" (.ci/run does this)`,
      );
    }
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-compare-html-'));
    await writeComparison(fixtureComparison(), fixture(BASELINE_FILE), fixture(CURRENT_FILE), dir);
    file = join(dir, 'compare.html');
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
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('draws both runs on every chart with no console errors, no CSP violations and no network requests', async () => {
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
    await page.addInitScript({
      content: `window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`,
    });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('.uplot canvas');
    const charts = await page.evaluate<ChartBox[]>(`[...document.querySelectorAll('.chart')].map((e) => {
      const r = e.querySelector('.uplot canvas')?.getBoundingClientRect();
      return { id: e.id, width: r ? r.width : 0, height: r ? r.height : 0, text: e.textContent.slice(0, 200) };
    })`);
    const csp = await page.evaluate<string[]>('window.__csp');
    const cspMeta = await page.evaluate<string>(
      `document.querySelector('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')`,
    );
    const text = (await page.textContent('body')) ?? '';
    await page.close();

    expect(charts.map((c) => c.id)).toEqual(
      expect.arrayContaining([
        'chart-pct-run',
        'chart-pct-status',
        'chart-pct-health',
        'chart-pct-e2e',
        'chart-execution',
        'chart-delay',
      ]),
    );
    for (const c of charts) {
      expect(c.width, `${c.id}: ${c.text}`).toBeGreaterThan(100);
      expect(c.height, c.id).toBeGreaterThan(100);
      // Every chart overlays the two runs, and its legend says which is which.
      expect(c.text, c.id).toMatch(/baseline.*current/);
    }
    expect(consoleErrors).toEqual([]);
    expect(csp).toEqual([]);
    expect(requests).toEqual([]);
    expect(cspMeta).toMatch(/default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-/);
    expect(cspMeta).not.toMatch(/unsafe/);
    expect(text).toContain('p50(executionTime)');
    expect(text).toContain('regression');
    expect(text).toContain('new(violations) == 0');
    expect(text).toContain('not exercised now');
  });
});
