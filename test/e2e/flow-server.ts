import { systemClock, type Clock } from '../../src/core/clock.js';
import { bareServer } from '../runner/helpers.js';

export interface FlowServer {
  /** `http://127.0.0.1:PORT/v2/ep`, a --target. */
  target: string;
  /** `METHOD path` of every request it received, path relative to the target. */
  received: string[];
  close(): Promise<void>;
}

const HEALTH =
  '{"jobs":{"completed":0,"failed":0,"inProgress":0,"inQueue":0,"retried":0},"workers":{"idle":1,"initializing":0,"running":0,"throttled":0,"unhealthy":0}}';

/**
 * A stand-in endpoint that counts what it gets: /run answers a new id, /status answers
 * IN_PROGRESS and then COMPLETED, /health a fixed body; every answer after `delayMs`, so requests
 * are in flight at any moment. `o.clock`: what the delay waits on, the system's by default (a real
 * server); a test's manual one when the run against it shares that clock (issue 46). `o.onRequest`
 * hears of each request as it comes, with how many came so far.
 */
export async function flowServer(
  delayMs = 0,
  o: { clock?: Clock; onRequest?: (received: number) => void } = {},
): Promise<FlowServer> {
  const clock = o.clock ?? systemClock;
  const received: string[] = [];
  const polls = new Map<string, number>();
  let n = 0;
  const s = await bareServer((req, res) => {
    const url = (req.url ?? '').replace(/^\/v2\/ep/, '');
    received.push(`${req.method ?? ''} ${url}`);
    o.onRequest?.(received.length);
    req.resume();
    req.on('end', () => {
      let body = '{"error":"no route"}';
      let status = 200;
      if (url === '/run') body = `{"id":"job-${String(++n)}","status":"IN_QUEUE"}`;
      else if (url === '/health') body = HEALTH;
      else if (url.startsWith('/status/')) {
        const id = url.slice('/status/'.length);
        const k = (polls.get(id) ?? 0) + 1;
        polls.set(id, k);
        body =
          k >= 2
            ? `{"id":"${id}","status":"COMPLETED","delayTime":1,"executionTime":1,"output":{}}`
            : `{"id":"${id}","status":"IN_PROGRESS","delayTime":1}`;
      } else status = 404;
      const answer = (): void => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      };
      // Real time unless a clock is given: a real loopback server, reached by built CLI processes
      // and runs on the system clock.
      if (delayMs > 0) clock.schedule(delayMs, answer);
      else answer();
    });
  });
  return { target: `${s.url}/v2/ep`, received, close: s.close };
}

/** A load scenario for the flow server: run, then poll until final. */
export function flowScenario(name: string, seconds: number, rate: number): string {
  return `name: ${name}
phases:
  - { duration: ${String(seconds)}s, rate: ${String(rate)} }
flows:
  - name: run-and-poll
    steps:
      - run: { input: { sleep_ms: 10 } }
      - poll: { until: final, interval: 100ms, timeout: 10s }
`;
}
