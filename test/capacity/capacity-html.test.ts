import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCapacityMarkdown, writeCapacityReports } from '../../src/capacity/index.js';
import { fixtureCapacityReport } from './capacity-fixture.js';

/** capacity.html in Debian's Chromium, like report.html: a missing browser fails rather than skips. */
const CHROMIUM = '/usr/bin/chromium';

const HEADLINE =
  'Highest sustainable rate: 101.3 arrivals/s offered (101.3 jobs/s submitted, 99.9 jobs/s achieved); passed at 101.3/s offered, failed at 106.9/s';

interface ChartBox {
  id: string;
  width: number;
  height: number;
}

describe('capacity reports', () => {
  let browser: Browser | undefined;
  let dir = '';

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: install it with "apt-get install -y chromium" (.ci/run does this)`,
      );
    dir = await mkdtemp(join(tmpdir(), 'jobstorm-capacity-html-'));
    await writeCapacityReports(fixtureCapacityReport(), dir);
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

  it('capacity.html draws every chart offline, with no console errors and no CSP violations', async () => {
    if (!browser) throw new Error('browser did not start');
    const url = pathToFileURL(join(dir, 'capacity.html')).href;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (r.url() !== url) requests.push(r.url());
    });
    await page.addInitScript({
      content: `window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective));`,
    });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('.uplot canvas');
    const charts = await page.evaluate<ChartBox[]>(`[...document.querySelectorAll('.chart')].map((e) => {
      const r = e.querySelector('.uplot canvas')?.getBoundingClientRect();
      return { id: e.id, width: r ? r.width : 0, height: r ? r.height : 0 };
    })`);
    const csp = await page.evaluate<string[]>('window.__csp');
    const text = (await page.textContent('body')) ?? '';
    // The nineteen-column steps table scrolls in its own box; the page itself is no wider than the window.
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    await page.close();
    expect(charts.map((c) => c.id)).toEqual([
      'chart-rates',
      'chart-e2e',
      'chart-timing',
      'chart-r429',
      'chart-workers',
    ]);
    for (const c of charts) expect(c.width * c.height, c.id).toBeGreaterThan(100 * 100);
    expect(errors).toEqual([]);
    expect(csp).toEqual([]);
    expect(requests).toEqual([]);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(text).toContain(HEADLINE);
    expect(text).toContain('fixture <script>alert(1)</script> & co');
  });

  it('capacity.md states the capacity, its interval, every step and why failing steps failed', async () => {
    const md = await readFile(join(dir, 'capacity.md'), 'utf8');
    expect(md).toBe(renderCapacityMarkdown(fixtureCapacityReport()));
    expect(md).toContain(`**${HEADLINE}**`);
    expect(md.split('\n').filter((l) => /^\| \d+ \|/.test(l))).toHaveLength(6);
    expect(md).toContain('- step 3 (135/s): SLO p95(delayTime) < 1s failed');
    expect(md).toContain("Little's law");
  });
});
