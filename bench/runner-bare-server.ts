/**
 * The bare node:http target of the runner benches: POST /v2/ep/run answers a new id IN_QUEUE,
 * GET /v2/ep/status/:id answers IN_PROGRESS the first time and COMPLETED the second (a flow of
 * `run` then `poll until final` is three requests), /health a fixed body. It keeps one counter per
 * unfinished job only, so its own memory stays flat on long runs. Prints its port on stdout.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const HEALTH =
  '{"jobs":{"completed":10,"failed":0,"inProgress":1,"inQueue":2,"retried":0},"workers":{"idle":1,"initializing":0,"running":1,"throttled":0,"unhealthy":0}}';
const seen = new Set<string>();
let n = 0;

const server = createServer((req, res) => {
  const url = req.url ?? '';
  let body: string;
  let status = 200;
  if (url === '/v2/ep/run') body = `{"id":"job-${String(++n)}","status":"IN_QUEUE"}`;
  else if (url.startsWith('/v2/ep/status/')) {
    const id = url.slice(14);
    if (seen.delete(id))
      body = `{"id":"${id}","status":"COMPLETED","delayTime":3,"executionTime":12,"output":{"ok":true}}`;
    else {
      seen.add(id);
      body = `{"id":"${id}","status":"IN_PROGRESS","delayTime":3}`;
    }
  } else if (url === '/v2/ep/health') body = HEALTH;
  else {
    status = 404;
    body = '{"error":"no route"}';
  }
  // Drain any request body before answering, as a real server must.
  req.resume();
  req.on('end', () => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${String((server.address() as AddressInfo).port)}\n`);
});
process.on('SIGTERM', () => process.exit(0));
