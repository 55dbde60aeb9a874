import { describe, expect, it } from 'vitest';
import { writtenAt } from '../../src/core/record.js';
import { proofRun } from './proof-run.js';

/*
 * No false positives under load: thousands of jobs on the faithful emulator, cancels racing
 * completion, stream readers, runsync waits, polls that skip states, and /run pushed past its
 * (dynamic) rate limit on purpose, with 429s retried. Every check stays silent.
 */
const MIXED = `
name: mixed-load
target: { connections: 128, maxInFlight: 4000, retry429: { attempts: 3, base: 200ms, max: 2s } }
emulator: { workersMin: 50, workersMax: 50, requestsPerWorker: 40, coldStart: 0 }
arrivals: { process: poisson, seed: 7 }
phases: [{ duration: 8s, rate: 300 }]
flows:
  - name: poll
    weight: 4
    steps:
      - run: { input: { sleep_ms: "{{random:20:400}}" } }
      - poll: { until: final, interval: 100ms, timeout: 20s }
  - name: cancel-race
    weight: 2
    steps:
      - run: { input: { sleep_ms: "{{random:0:200}}" } }
      - cancel: { after: 100ms }
      - poll: { until: final, interval: 100ms, timeout: 20s }
  - name: stream
    weight: 1
    steps:
      - run: { input: { sleep_ms: 300, stream: 4 } }
      - stream: { interval: 50ms, timeout: 20s }
  - name: sync
    weight: 1
    steps:
      - runsync: { input: { sleep_ms: "{{random:10:1500}}" }, wait: 1s }
  - name: failing
    weight: 1
    steps:
      - run: { input: { sleep_ms: 50, fail: "handler error" } }
      - poll: { until: final, interval: 100ms, timeout: 20s }
      - retry: {}
      - poll: { until: final, interval: 100ms, timeout: 20s }
`;

describe('the faithful emulator under load', () => {
  it('thousands of jobs, cancel races, streams and provoked 429s give zero violations', async () => {
    const result = await proofRun(MIXED);
    const exchanges = result.records.filter((r) => r.type === 'exchange');
    const submitted = exchanges.filter(
      (r) => (r.op === 'run' || r.op === 'runsync') && r.status === 200,
    ).length;
    const throttled = exchanges.filter((r) => r.status === 429).length;
    const cancels = exchanges.filter((r) => r.op === 'cancel' && r.status === 200).length;
    expect(submitted).toBeGreaterThan(1500);
    expect(throttled).toBeGreaterThan(0);
    expect(cancels).toBeGreaterThan(200);
    expect(
      result.violations.map((g) => `${g.id} ×${String(g.count)}: ${g.examples[0]?.message ?? ''}`),
    ).toEqual([]);
  }, 120_000);
});

/*
 * More /runsync calls than connections: each holds its connection for its whole wait, so the rest
 * wait in our pool first. The service's wait starts when it reads the request; before the record
 * said when that was, each queued call was a false lifecycle.runsync-wait-exceeded.
 */
const QUEUED_RUNSYNC = `
name: runsync-beyond-connections
target: { connections: 2, timeout: 30s }
emulator: { workersMin: 1, workersMax: 1, coldStart: 10ms }
phases: [{ duration: 1s, rate: 8 }]
flows:
  - name: sync
    steps:
      - runsync: { input: { sleep_ms: 4000 }, wait: 1s }
`;

describe('the faithful emulator, /runsync queued behind busy connections', () => {
  it('judges each wait from when its request went onto a connection, and finds nothing', async () => {
    const result = await proofRun(QUEUED_RUNSYNC);
    const sync = result.records.filter((r) => r.type === 'exchange' && r.op === 'runsync');
    expect(sync).toHaveLength(8);
    // Most of them waited a whole wait (1 s) or more for one of the two connections: as arrivals
    // not yet started (their sentAt is when one was free), or in the pool (queuedMs).
    expect(
      sync.filter((r) => r.type === 'exchange' && writtenAt(r) - r.intendedAt >= 900).length,
    ).toBeGreaterThanOrEqual(4);
    expect(result.coverage['lifecycle.runsync-wait-exceeded']).toBeGreaterThanOrEqual(8);
    expect(
      result.violations.map((g) => `${g.id} ×${String(g.count)}: ${g.examples[0]?.message ?? ''}`),
    ).toEqual([]);
  }, 60_000);
});
