/**
 * The bare node:http target of the client and blast benches (perf-anchors.md measures the same
 * kind): /run, /status/:id and /health answer fixed JSON, so every generator hits the same ceiling
 * and the comparison is about the generator's own cost. Prints its port on stdout.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const HEALTH = JSON.stringify({
  jobs: { completed: 10, failed: 0, inProgress: 1, inQueue: 2, retried: 0 },
  workers: { idle: 1, running: 1 },
});
let n = 0;

const server = createServer((req, res) => {
  const url = req.url ?? '';
  let body: string;
  if (url === '/v2/ep/health') body = HEALTH;
  else if (url === '/v2/ep/run') body = `{"id":"job-${String(++n)}","status":"IN_QUEUE"}`;
  else if (url.startsWith('/v2/ep/status/'))
    body = `{"id":"${url.slice(14)}","status":"COMPLETED","delayTime":3,"executionTime":12,"output":{"ok":true}}`;
  else body = '{"error":"no route"}';
  // Drain any request body before answering, as a real server must.
  req.resume();
  req.on('end', () => {
    res.writeHead(url.startsWith('/v2/ep/') ? 200 : 404, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${String((server.address() as AddressInfo).port)}\n`);
});
process.on('SIGTERM', () => process.exit(0));
