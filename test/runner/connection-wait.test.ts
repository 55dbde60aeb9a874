import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import type { RunOptions, Target } from '../../src/runner/run-options.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { MANUAL_EPOCH_MS, quietLoop } from '../helpers/manual-target.js';
import {
  arrivalsOf,
  bareServer,
  exchanges,
  inlineScenario,
  runCollecting,
  type Collected,
} from './helpers.js';

/*
 * An arrival that comes while every connection carries a request waits for one before its
 * iteration starts (src/runner/dispatcher.ts): a number in a queue, not a started iteration whose
 * request waits in the pool. What a user sees of it: the wait counts in the latency from the
 * intended start, the arrival is not called late (the pacer was on time), the request's own
 * latency from send does not include it, and when the drain time runs out every waiting arrival
 * still ends as a record. The run and the server's holds share a manual clock (issue 46): each
 * answer takes the server's time exactly, whatever the machine's load.
 */

const clock = new ManualClock(0, MANUAL_EPOCH_MS);

/** Runs the scenario on the shared manual clock, moved as the exchanges in flight settle. */
function runManual(s: Scenario, target: Target, extra: Partial<RunOptions> = {}): Promise<Collected> {
  return new ClockDriver(clock).run(runCollecting(s, target, { ...extra, clock, generatorProbe: quietLoop }));
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** Answers every request after `holdMs` (never, with Infinity), counting those it holds at once. */
async function holdingServer(holdMs: number): Promise<{ url: string; most: () => number }> {
  let holding = 0;
  let most = 0;
  const s = await bareServer((_req, res) => {
    holding++;
    most = Math.max(most, holding);
    if (holdMs === Number.POSITIVE_INFINITY) return;
    clock.schedule(holdMs, () => {
      holding--;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          '{"workers":{"idle":1,"running":0},"jobs":{"completed":0,"failed":0,"inProgress":0,"inQueue":0,"retried":0}}',
        );
    });
  });
  closers.push(s.close);
  return { url: s.url, most: () => most };
}

const twentyOverTwo = (drain = '') => `
name: more-arrivals-than-connections
target: { connections: 2, timeout: 10s }
phases: [{ duration: 500ms, rate: 40 }]
flows:
  - name: h
    steps:
      - health: {}
${drain}`;

describe('arrivals beyond the connections', () => {
  it('wait for a free connection before they start: counted in latency from intended, not as lateness or as latency from send', async () => {
    const server = await holdingServer(150);
    const { records, outcome } = await runManual(inlineScenario(twentyOverTwo()), {
      baseUrl: server.url,
      apiKey: 'k',
      ownsEndpoint: false,
    });
    const first = arrivalsOf(records);
    expect(first).toHaveLength(20);
    expect(first.every((r) => r.status === 200)).toBe(true);
    expect(server.most()).toBeLessThanOrEqual(2);
    const byIntended = [...first].sort((a, b) => a.intendedAt - b.intendedAt);
    const last = byIntended.slice(-5);
    // Ten rounds of 150 ms over two connections for arrivals due within 500 ms: the last ones
    // waited most of a second before a connection was free, and started only then.
    for (const r of last) {
      expect(r.sentAt - r.intendedAt).toBeGreaterThan(500);
      expect(r.endAt - r.intendedAt).toBeGreaterThan(600);
      // Latency from send is the service's 150 ms, not the wait; nothing waited in the pool.
      expect(r.endAt - r.sentAt).toBe(150);
      expect(r.queuedMs ?? 0).toBeLessThan(100);
    }
    // The pacer handed every arrival on time: waiting for a connection is not lateness. Counted as
    // lateness, the waits would put its p99 (of 20) at the longest of them.
    expect(outcome.latenessP99Ms).toBeLessThan(Math.min(...last.map((r) => r.sentAt - r.intendedAt)));
    expect(outcome.counters.inFlight).toBe(0);
    // The report's line: how many waited, and the longest wait, as the records show it.
    // A send later than the pacer's own lateness waited for a connection; one within it may only
    // have met a busy loop (a loaded machine), which the connection-wait line rightly leaves out.
    const waitedInRecords = first.filter((r) => r.sentAt - r.intendedAt > outcome.latenessP99Ms + 50);
    expect(outcome.connectionWait?.connections).toBe(2);
    expect(outcome.connectionWait?.arrivals).toBeGreaterThanOrEqual(waitedInRecords.length);
    expect(outcome.connectionWait?.arrivals).toBeGreaterThanOrEqual(15);
    expect(outcome.connectionWait?.longestMs).toBeCloseTo(
      Math.max(...first.map((r) => r.sentAt - r.intendedAt)),
      -1,
    );
  });

  it('a run whose connections were never all busy says nothing about waiting', async () => {
    const server = await holdingServer(1);
    const { records, outcome } = await runManual(
      inlineScenario(twentyOverTwo().replace('rate: 40', 'rate: 10')),
      { baseUrl: server.url, apiKey: 'k', ownsEndpoint: false },
    );
    expect(arrivalsOf(records)).toHaveLength(5);
    expect(outcome.connectionWait).toBeUndefined();
  });

  it('still end as records when the drain time runs out while they wait', async () => {
    const server = await holdingServer(Number.POSITIVE_INFINITY);
    const { records, outcome } = await runManual(
      inlineScenario(twentyOverTwo()),
      { baseUrl: server.url, apiKey: 'k', ownsEndpoint: false },
      { gracefulStopMs: 200, drainMs: 300 },
    );
    const first: ExchangeRecord[] = arrivalsOf(records);
    // Two went onto the connections; the other 18 were waiting when the drain time ran out. Each
    // is a record of a request that did not get an answer, none is lost, none is a drop.
    expect(first).toHaveLength(20);
    expect(exchanges(records).every((r) => r.status === undefined && r.error !== undefined)).toBe(true);
    expect(records.filter((r) => r.type === 'dropped')).toEqual([]);
    expect(outcome.counters.inFlight).toBe(0);
  });
});
