import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import type { Summary } from '../../src/report/summary.js';
import { captureIo } from '../helpers/cli-io.js';

/**
 * The live dashboard in a real browser (issue 51): Debian's Chromium driven by playwright-core
 * against `jobstorm run --dashboard` on the embedded emulator, in real time (a page's events
 * come on the browser's clock, not a manual one). What is timed is read from the frames' own run
 * time, not from when the test happened to look, so a loaded machine only makes it slower.
 */
const CHROMIUM = '/usr/bin/chromium';
const SCENARIO = join(import.meta.dirname, '../../scenarios/steady-load.yaml');

interface Seen {
  seq: number;
  state: string;
  elapsedMs: number;
}

async function until<T>(get: () => T | undefined, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Each operation's request count in the operations table, as shown (browser code as a string: no DOM types here). */
const SHOWN_COUNTS = `(() => {
  const out = {};
  const heading = [...document.querySelectorAll('#report h2')].find((h) => h.textContent === 'Operations');
  heading?.nextElementSibling?.querySelectorAll('tbody tr').forEach((tr) => {
    const cells = tr.querySelectorAll('td');
    out[cells[0]?.textContent ?? ''] = Number(cells[1]?.textContent ?? 'NaN');
  });
  return out;
})()`;

function shownCounts(page: Page): Promise<Record<string, number>> {
  return page.evaluate<Record<string, number>>(SHOWN_COUNTS);
}

/**
 * Polls `expression` in the page until it is true. Not page.waitForFunction: with a string it
 * evaluates through eval, which the page's CSP (script by hash only) rightly refuses.
 */
async function waitFor(page: Page, expression: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const STATE_IS = (state: string): string =>
  `document.getElementById('report')?.getAttribute('data-state') === '${state}'`;

describe('jobstorm run --dashboard in Chromium (issue 51)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser.close();
  });

  it('shows numbers within 2 s, updates each second, survives a reload, and ends equal to the summary', async () => {
    const page = await browser.newPage();
    const out = mkdtempSync(join(tmpdir(), 'jobstorm-dash-'));
    const io = captureIo();
    const exit = runCli(['run', SCENARIO, '--duration', '7s', '--dashboard', '--quiet', '--out', out], io);
    const url = await until(() => /dashboard: (http\S+)/.exec(io.stderr.join('\n'))?.[1], 'the URL');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    await page.goto(url);
    const frames = (): Promise<Seen[]> => page.evaluate<Seen[]>('window.jobstormFrames');

    // Numbers within 2 s of the run's start: the first running frame carries the operations so far.
    await waitFor(page, STATE_IS('running'), 20_000);
    const firstRunning = (await frames()).find((f) => f.state === 'running');
    expect(firstRunning?.elapsedMs).toBeLessThanOrEqual(2000);
    const early = await shownCounts(page);
    expect(Object.values(early).some((n) => n > 0)).toBe(true);
    expect(await page.textContent('[data-figure="requests"]')).toMatch(/^\d/);

    // Updates each second: three more frames, each about a second of run time after the one before.
    await waitFor(page, "window.jobstormFrames.filter((f) => f.state === 'running').length >= 4", 20_000);
    const before = (await frames()).filter((f) => f.state === 'running');
    const gaps = before.slice(1).map((f, i) => f.elapsedMs - (before[i]?.elapsedMs ?? 0));
    for (const g of gaps) expect(g).toBeGreaterThan(500);
    expect(Math.min(...gaps)).toBeLessThan(1500);
    const countsBefore = await shownCounts(page);

    // A reload mid-run shows the whole history at once, from the page itself, before any event.
    const elapsedBefore = before.at(-1)?.elapsedMs ?? 0;
    await page.reload({ waitUntil: 'domcontentloaded' });
    const reloaded = Number(await page.getAttribute('#report', 'data-elapsed-ms'));
    const state = await page.getAttribute('#report', 'data-state');
    expect(state === 'done' || reloaded >= elapsedBefore).toBe(true);
    const countsAfter = await shownCounts(page);
    for (const [op, n] of Object.entries(countsBefore)) expect(countsAfter[op]).toBeGreaterThanOrEqual(n);
    expect(await page.locator('#chart-throughput canvas').count()).toBe(1);

    // The end: the page shows the final summary, the same view as report.html.
    await waitFor(page, STATE_IS('done'), 60_000);
    // A loaded machine may fail the scenario's latency thresholds (exit 1): the page must show that too.
    expect([0, 1]).toContain(await exit);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
    const finalCounts = await shownCounts(page);
    expect(finalCounts).toEqual(
      Object.fromEntries(Object.entries(summary.operations).map(([op, o]) => [op, o.requests])),
    );
    const live = await page.evaluate<string>(
      "document.getElementById('verdict').innerText + '\\n' + document.getElementById('report').innerText",
    );
    const file = await browser.newPage();
    await file.goto(pathToFileURL(join(out, 'report.html')).href);
    expect(live.trim()).toBe((await file.evaluate<string>('document.body.innerText')).trim());
    await file.close();
    await page.close();
  }, 120_000);
});
