import { request } from 'node:http';
import { EventReader } from './frame-events.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { Dashboard, type LiveState } from '../../src/dashboard/index.js';
import type { DashboardFrame } from '../../src/dashboard/dashboard-frame.js';
import { reportView } from '../../src/report/html-reporter.js';
import type { Summary } from '../../src/report/summary.js';
import { fixtureSummary } from '../report/fixtures/fixture-summary.js';

async function get(url: string, host?: string): Promise<{ status: number; body: string; csp: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body,
          csp: (/content="([^"]*connect-src[^"]*)"/.exec(body)?.[1] ?? '').replace(/&apos;/g, "'"),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The run so far as a source would give it: the fixture's summary, its run time growing with the clock. */
function growing(
  clock: ManualClock,
  s: Summary,
): { source: () => LiveState | undefined; asked: () => number } {
  let asked = 0;
  return {
    source: () => {
      asked++;
      return { summary: { ...s, run: { ...s.run, durationMs: clock.now() } }, running: true };
    },
    asked: () => asked,
  };
}

const open: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function started(
  source: () => LiveState | undefined,
  clock: ManualClock,
): Promise<[Dashboard, string]> {
  const d = new Dashboard({ clock, title: 'jobstorm live test', source });
  open.push(d);
  return [d, await d.start()];
}

describe('Dashboard (issue 51)', () => {
  it('costs nothing with no page open: no summary is asked for while nobody watches', async () => {
    const clock = new ManualClock();
    const g = growing(clock, fixtureSummary());
    const [d] = await started(g.source, clock);
    for (let i = 0; i < 30; i++) clock.advance(1000);
    expect(g.asked()).toBe(0);
    expect(d.framesBuilt).toBe(0);
  });

  it('sends the whole state on connect, then a frame each second of the run clock', async () => {
    const clock = new ManualClock();
    const g = growing(clock, fixtureSummary());
    const [d, url] = await started(g.source, clock);
    const events = new EventReader(url);
    open.push(events);
    const [first] = await events.count(1);
    expect(first?.state).toBe('running');
    expect(first?.body).toContain('<h2>Operations</h2>');
    while (d.watching === 0) await new Promise((r) => setImmediate(r));
    for (let s = 1; s <= 3; s++) {
      clock.advance(1000);
      await events.count(1 + s);
    }
    const frames = events.frames;
    expect(frames.map((f) => f.elapsedMs)).toEqual([0, 1000, 2000, 3000]);
    expect(frames.map((f) => f.seq)).toEqual([1, 2, 3, 4]);
    // Half a second more is no new second: no frame.
    clock.advance(500);
    await new Promise((r) => setTimeout(r, 20));
    expect(frames).toHaveLength(4);
  });

  it('serves a reload the history so far, under a CSP that allows only its own events', async () => {
    const clock = new ManualClock();
    const s = fixtureSummary();
    const [, url] = await started(growing(clock, s).source, clock);
    clock.advance(4000);
    const page = await get(url);
    expect(page.status).toBe(200);
    expect(page.csp).toContain("connect-src 'self'");
    expect(page.csp).toContain("default-src 'none'");
    expect(page.body).toContain('data-elapsed-ms="4000"');
    // The whole report view of the summary so far: every operation's row and every finding's evidence.
    const view = reportView({ ...s, run: { ...s.run, durationMs: 4000 } }, true);
    expect(page.body).toContain(view.body);
    expect(page.body).toContain('RUNNING');
  });

  it('shows the final summary, the same view as report.html, and stops updating', async () => {
    const clock = new ManualClock();
    const s = fixtureSummary();
    const [d, url] = await started(growing(clock, s).source, clock);
    const events = new EventReader(url);
    open.push(events);
    await events.count(1);
    d.finish(s);
    const frames = await events.count(2);
    expect(frames[1]?.state).toBe('done');
    const view = reportView(s);
    expect(frames[1]?.body).toBe(view.body);
    expect(frames[1]?.verdict).toBe(view.verdict);
    clock.advance(5000);
    await new Promise((r) => setTimeout(r, 20));
    expect(events.frames).toHaveLength(2);
    const page = await get(url);
    expect(page.body).toContain('data-state="done"');
    expect(page.body).toContain(view.body);
  });

  it('answers only requests named to loopback (no DNS rebinding), and GET only', async () => {
    const clock = new ManualClock();
    const [, url] = await started(growing(clock, fixtureSummary()).source, clock);
    expect((await get(url, 'attacker.example')).status).toBe(421);
    expect((await get(url, `localhost:${new URL(url).port}`)).status).toBe(200);
    expect((await get(`${url}nothing`)).status).toBe(404);
  });

  it('before the first record, says the run is starting', async () => {
    const clock = new ManualClock();
    const [, url] = await started(() => undefined, clock);
    const frame = JSON.parse((await get(`${url}frame.json`)).body) as DashboardFrame;
    expect(frame.state).toBe('waiting');
    expect(frame.verdict).toContain('STARTING');
  });
});
