import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { MANUAL_EPOCH_MS, quietLoop } from '../helpers/manual-target.js';
import { bareServer, exchanges, inlineScenario, runCollecting } from './helpers.js';

/*
 * The run and the test's target share a manual clock (issue 46): the slow /health answer comes
 * 400 ms of that clock later and the drain ends at its exact time, whatever the machine's load.
 */

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('the end of a run', () => {
  it('a /health sample in flight when the flows finish is let finish, not recorded as aborted', async () => {
    const clock = new ManualClock(0, MANUAL_EPOCH_MS);
    const server = await bareServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const answer = (): void => {
          if (!res.destroyed)
            res
              .writeHead(200, { 'content-type': 'application/json' })
              .end(
                req.url?.endsWith('/run')
                  ? '{"id":"job-1","status":"IN_QUEUE"}'
                  : '{"jobs":{"completed":0,"failed":0,"inProgress":0,"inQueue":0,"retried":0},"workers":{"idle":1,"running":0}}',
              );
        };
        // The first sample goes out at time 0 and is still unanswered when the one-request flow ends.
        if (req.url?.endsWith('/health')) clock.schedule(400, answer);
        else answer();
      });
    });
    close = server.close;
    const scenario = inlineScenario(`
name: clean-end
phases:
  - { count: 1 }
flows:
  - name: submit
    steps:
      - run: { input: {} }
`);
    const { records } = await new ClockDriver(clock).run(
      runCollecting(
        scenario,
        { baseUrl: `${server.url}/v2/ep`, apiKey: 'k', ownsEndpoint: false },
        { sampleHealth: true, drainMs: 3000, clock, generatorProbe: quietLoop },
      ),
    );
    const ex = exchanges(records);
    expect(ex.filter((r) => r.op === 'health')).not.toEqual([]);
    expect(ex.filter((r) => r.error !== undefined).map((r) => `${r.op}: ${r.error?.kind ?? ''}`)).toEqual([]);
  });

  it('the drain time still bounds a request that never answers: it ends as an aborted record', async () => {
    const server = await bareServer((req) => {
      req.resume();
      // Never answers.
    });
    close = server.close;
    const scenario = inlineScenario(`
name: hung
phases:
  - { count: 1 }
flows:
  - name: submit
    steps:
      - run: { input: {} }
`);
    const clock = new ManualClock(0, MANUAL_EPOCH_MS);
    const { records } = await new ClockDriver(clock).run(
      runCollecting(
        scenario,
        { baseUrl: `${server.url}/v2/ep`, apiKey: 'k', ownsEndpoint: false },
        { sampleHealth: true, gracefulStopMs: 300, drainMs: 300, clock, generatorProbe: quietLoop },
      ),
    );
    // Cut when the graceful stop and then the drain ran out, and the run ended there.
    expect(clock.now()).toBe(300 + 300);
    const ex = exchanges(records);
    expect(ex.length).toBeGreaterThanOrEqual(2);
    expect(ex.every((r) => r.error?.kind === 'aborted')).toBe(true);
    expect(ex.map((r) => r.endAt)).toEqual(ex.map(() => 300 + 300));
  });
});
