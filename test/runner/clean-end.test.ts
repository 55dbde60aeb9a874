import { afterEach, describe, expect, it } from 'vitest';
import { bareServer, exchanges, inlineScenario, runCollecting } from './helpers.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('the end of a run', () => {
  it('a /health sample in flight when the flows finish is let finish, not recorded as aborted', async () => {
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
        if (req.url?.endsWith('/health')) setTimeout(answer, 400);
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
    const { records } = await runCollecting(
      scenario,
      { baseUrl: `${server.url}/v2/ep`, apiKey: 'k', ownsEndpoint: false },
      { sampleHealth: true, drainMs: 3000 },
    );
    const ex = exchanges(records);
    expect(ex.filter((r) => r.op === 'health')).not.toEqual([]);
    expect(ex.filter((r) => r.error !== undefined).map((r) => `${r.op}: ${r.error?.kind ?? ''}`)).toEqual([]);
  }, 20_000);

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
    const started = performance.now();
    const { records } = await runCollecting(
      scenario,
      { baseUrl: `${server.url}/v2/ep`, apiKey: 'k', ownsEndpoint: false },
      { sampleHealth: true, gracefulStopMs: 300, drainMs: 300 },
    );
    expect(performance.now() - started).toBeLessThan(5000);
    const ex = exchanges(records);
    expect(ex.length).toBeGreaterThanOrEqual(2);
    expect(ex.every((r) => r.error?.kind === 'aborted')).toBe(true);
  }, 20_000);
});
