import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord, StallRecord } from '../../src/core/record.js';
import { renderHtml } from '../../src/report/html-reporter.js';
import { markdownReporter } from '../../src/report/markdown-reporter.js';
import { renderTerminalSummary } from '../../src/report/report-writer.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { parseSummary } from '../../src/report/summary-schema.js';
import { bareServer, exchanges, inlineScenario, runCollecting } from './helpers.js';
import { FoldedMetrics } from '../helpers/folded.js';
import { ManualClock } from '../../src/core/manual-clock.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { MANUAL_EPOCH_MS, quietLoop } from '../helpers/manual-target.js';

/*
 * Issue 12, against plain loopback servers (not the emulator): a target that accepts and then
 * never answers is a stall (reported with its start, length and load) and the run does not wait
 * its graceful stop on it; a target that is slow but answers is no stall. The runs and the slow
 * server's answers share a manual clock (issue 46): the stall's start and length are exact.
 */

const HEALTH =
  '{"jobs":{"completed":0,"failed":0,"inProgress":0,"inQueue":0,"retried":0},"workers":{"idle":1,"running":0}}';
let close: (() => Promise<void>) | undefined;
const held: ServerResponse[] = [];

afterEach(async () => {
  for (const res of held.splice(0)) res.destroy();
  await close?.();
  close = undefined;
});

function scenario(stallAfter: string): ReturnType<typeof inlineScenario> {
  return inlineScenario(`
name: stalled
target: { stallAfter: ${stallAfter} }
phases:
  - { duration: 3s, rate: 20 }
flows:
  - name: health
    steps:
      - health: {}
`);
}

describe('a stalled target', () => {
  it('accepts, then never answers: one stall record, the summary line, and no 30 s graceful stop', async () => {
    let n = 0;
    const server = await bareServer((req, res) => {
      req.resume();
      // About a second of answers, then silence: requests are accepted and held.
      if (++n > 20) held.push(res);
      else res.writeHead(200, { 'content-type': 'application/json' }).end(HEALTH);
    });
    close = server.close;
    const clock = new ManualClock(0, MANUAL_EPOCH_MS);
    const { records } = await new ClockDriver(clock).run(
      runCollecting(
        scenario('1s'),
        { baseUrl: `${server.url}/v2/ep`, apiKey: 'k', ownsEndpoint: false },
        { drainMs: 1000, clock, generatorProbe: quietLoop },
      ),
    );
    // 3 s of arrivals + 1 s drain + 1 s abort grace at most; not 3 + 30.
    expect(clock.now()).toBeLessThanOrEqual(3000 + 1000 + 1000);
    const stalls = records.filter((r): r is StallRecord => r.type === 'stall');
    expect(stalls).toHaveLength(1);
    const stall = stalls[0];
    if (!stall) throw new Error('no stall');
    const lastAnswer = Math.max(
      ...exchanges(records)
        .filter((r) => r.status !== undefined)
        .map((r) => r.endAt),
    );
    expect(stall.at).toBeGreaterThanOrEqual(lastAnswer - 100);
    expect(stall.at).toBeLessThan(lastAnswer + 200);
    expect(stall.durationMs).toBeGreaterThan(1500);
    expect(stall.inFlight).toBeGreaterThan(10);

    const run = records.find((r): r is RunRecord => r.type === 'run');
    if (!run) throw new Error('no run record');
    const metrics = new FoldedMetrics();
    for (const r of records) metrics.add(r);
    const summary = buildSummary({ run, metrics, durationMs: 4000 });
    expect(summary.stalls).toHaveLength(1);
    expect(summary.stalls?.[0]?.at).toBeCloseTo(stall.at, 3);
    expect(summary.stalls?.[0]).toMatchObject({ durationMs: stall.durationMs, inFlight: stall.inFlight });
    const stallLine = /target stalled for \d+\.\d s from t\+1s with \d+ requests in flight/;
    // Every report says it, not only the terminal.
    expect(renderTerminalSummary(summary)).toMatch(stallLine);
    expect(markdownReporter.render(summary)).toMatch(stallLine);
    expect(renderHtml(summary)).toMatch(stallLine);
    // summary.json keeps it through a read-back (jobstorm report) and a merge of shards.
    const read = parseSummary(JSON.parse(JSON.stringify(summary)), 'summary.json');
    expect(read.stalls).toEqual(summary.stalls);
    expect(mergeSummaries([read]).stalls?.map((x) => x.durationMs)).toEqual([stall.durationMs]);
  });

  it('slow (each answer 800 ms, under stallAfter) but answering is no stall', async () => {
    const clock = new ManualClock(0, MANUAL_EPOCH_MS);
    const server = await bareServer((req, res) => {
      req.resume();
      clock.schedule(800, () => res.writeHead(200, { 'content-type': 'application/json' }).end(HEALTH));
    });
    close = server.close;
    const { records } = await new ClockDriver(clock).run(
      runCollecting(
        scenario('1s'),
        { baseUrl: `${server.url}/v2/ep`, apiKey: 'k', ownsEndpoint: false },
        { drainMs: 2500, clock, generatorProbe: quietLoop },
      ),
    );
    expect(exchanges(records).filter((r) => r.status === 200).length).toBeGreaterThan(50);
    expect(records.filter((r) => r.type === 'stall')).toEqual([]);
  });
});
