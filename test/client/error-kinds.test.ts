import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import {
  createServer as createNetServer,
  type AddressInfo,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobClient, type JobClient } from '../../src/client/index.js';
import { systemClock } from '../../src/core/clock.js';
import type { ExchangeRecord, RunRecord } from '../../src/core/record.js';
import { toRequestError } from '../../src/core/request-error.js';
import { getReporter } from '../../src/report/reporter-registry.js';
import { renderTerminalSummary } from '../../src/report/report-writer.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { closedPort, sendJson, startServer, type TestServer } from './test-server.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * Issue 13 item 9: a failed request names its cause. Each kind comes from a real loopback server
 * failing in that way (a self-signed certificate made here with the openssl CLI, a plain-text
 * server spoken to over TLS, a reset, a close without an answer, a refused port, a server that
 * never answers) and from a real lookup of a name that cannot exist (.invalid, RFC 6761).
 */

const all: ExchangeRecord[] = [];
let dir = '';
let tlsServer: HttpsServer;
let plainServer: NetServer;
let resetServer: NetServer;
let closeServer: NetServer;
let silent: TestServer;
const sockets: Socket[] = [];

function listen(server: NetServer | HttpsServer): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

function client(baseUrl: string, timeoutMs = 5000): JobClient {
  return createJobClient({
    baseUrl,
    apiKey: 'k',
    auth: 'bearer',
    connections: 1,
    timeoutMs,
    clock: systemClock,
    onRecord: (r) => all.push(r),
  });
}

async function healthError(baseUrl: string, timeoutMs?: number): Promise<ExchangeRecord['error']> {
  const c = client(baseUrl, timeoutMs);
  const r = await c.health();
  await c.destroy();
  expect(r.status).toBeUndefined();
  return r.error;
}

const ports: Record<string, number> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobstorm-tls-'));
  // node:crypto cannot write an X.509 certificate; the openssl CLI can.
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
  ]);
  tlsServer = createHttpsServer(
    { key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) },
    (_req, res) => sendJson(res, 200, { jobs: {}, workers: {} }),
  );
  plainServer = createNetServer((s) => s.end('this is not TLS\r\n\r\n'));
  resetServer = createNetServer((s) => s.resetAndDestroy());
  // Reads the request, then hangs up without a byte of answer.
  closeServer = createNetServer((s) => s.once('data', () => s.destroy()));
  silent = await startServer(() => undefined);
  ports.tls = await listen(tlsServer);
  ports.plain = await listen(plainServer);
  ports.reset = await listen(resetServer);
  ports.close = await listen(closeServer);
  for (const s of [plainServer, resetServer, closeServer]) s.on('connection', (sock) => sockets.push(sock));
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  tlsServer.closeAllConnections();
  await Promise.all(
    [tlsServer, plainServer, resetServer, closeServer].map((s) => new Promise((r) => s.close(r))),
  );
  await silent.close();
  await rm(dir, { recursive: true, force: true });
});

describe('request failures name their cause, with the original code', () => {
  it('a self-signed certificate is tls, DEPTH_ZERO_SELF_SIGNED_CERT', async () => {
    expect(await healthError(`https://127.0.0.1:${String(ports.tls)}/v2/ep`)).toMatchObject({
      kind: 'tls',
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
  });

  it('TLS spoken to a server that does not speak it is tls, ERR_SSL_*', async () => {
    const error = await healthError(`https://127.0.0.1:${String(ports.plain)}/v2/ep`);
    expect(error?.kind).toBe('tls');
    expect(error?.code).toMatch(/^ERR_SSL_/);
  });

  it('a reset connection is reset, ECONNRESET', async () => {
    expect(await healthError(`http://127.0.0.1:${String(ports.reset)}/v2/ep`)).toMatchObject({
      kind: 'reset',
      code: 'ECONNRESET',
    });
  });

  it('a connection closed without an answer is reset, UND_ERR_SOCKET', async () => {
    expect(await healthError(`http://127.0.0.1:${String(ports.close)}/v2/ep`)).toMatchObject({
      kind: 'reset',
      code: 'UND_ERR_SOCKET',
    });
  });

  it('a refused port is refused, ECONNREFUSED', async () => {
    expect(await healthError(`http://127.0.0.1:${String(await closedPort())}/v2/ep`)).toMatchObject({
      kind: 'refused',
      code: 'ECONNREFUSED',
    });
  });

  it('a server that never answers is timeout, at our deadline', async () => {
    expect(await healthError(`${silent.url}/v2/ep`, 300)).toMatchObject({
      kind: 'timeout',
      code: 'JOBSTORM_DEADLINE',
    });
  });

  it('a name that does not resolve is dns, ENOTFOUND, and is known quickly', async () => {
    // Real time: a real DNS lookup.
    const started = performance.now();
    const error = await healthError('http://nonexistent.invalid/v2/ep');
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(error).toMatchObject({ kind: 'dns', code: 'ENOTFOUND' });
  });

  it('the terminal and Markdown reports list each kind by name', () => {
    const run: RunRecord = {
      v: 1,
      type: 'run',
      runId: 'kinds',
      scenario: 'kinds',
      target: 'https://127.0.0.1/v2/ep',
      startedAtMs: 0,
      ownsEndpoint: false,
    };
    const metrics = new FoldedMetrics();
    metrics.add(run);
    for (const r of all) metrics.add(r);
    const summary = buildSummary({ run, metrics });
    const line = 'dns 1, refused 1, reset 2, timeout 1, tls 2';
    expect(summary.errors).toEqual({ dns: 1, refused: 1, reset: 2, timeout: 1, tls: 2 });
    expect(renderTerminalSummary(summary)).toContain(`transport errors: ${line}`);
    expect(getReporter('markdown').render(summary)).toContain(`Transport errors: ${line}.`);
  });
});

describe('toRequestError reads a cause that names the failure better', () => {
  it.each([
    // undici's socket error around a TLS verdict: the verdict is the cause.
    [
      { code: 'UND_ERR_SOCKET', cause: { code: 'ERR_TLS_CERT_ALTNAME_INVALID' } },
      'tls',
      'ERR_TLS_CERT_ALTNAME_INVALID',
    ],
    [{ code: 'UND_ERR_SOCKET', cause: { code: 'CERT_HAS_EXPIRED' } }, 'tls', 'CERT_HAS_EXPIRED'],
    [
      { code: 'UND_ERR_SOCKET', cause: { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' } },
      'tls',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    ],
    [{ code: 'SELF_SIGNED_CERT_IN_CHAIN' }, 'tls', 'SELF_SIGNED_CERT_IN_CHAIN'],
    [{ code: 'UND_ERR_SOCKET', cause: { code: 'ECONNRESET' } }, 'reset', 'ECONNRESET'],
    [{ code: 'UND_ERR_SOCKET' }, 'reset', 'UND_ERR_SOCKET'],
    [{ name: 'TypeError', cause: { code: 'EAI_AGAIN' } }, 'dns', 'EAI_AGAIN'],
    [{ code: 'UND_ERR_CONNECT_TIMEOUT' }, 'timeout', 'UND_ERR_CONNECT_TIMEOUT'],
    [{ code: 'UND_ERR_HEADERS_TIMEOUT' }, 'timeout', 'UND_ERR_HEADERS_TIMEOUT'],
    [{ code: 'UND_ERR_BODY_TIMEOUT' }, 'timeout', 'UND_ERR_BODY_TIMEOUT'],
    [{ code: 'HPE_INVALID_HEADER_TOKEN' }, 'protocol', 'HPE_INVALID_HEADER_TOKEN'],
    [{ code: 'UND_ERR_ABORTED', cause: { code: 'ECONNRESET' } }, 'aborted', 'UND_ERR_ABORTED'],
    // The wind-down destroying the pool under a stalled target: jobstorm's cut, not the target's failure.
    [{ code: 'UND_ERR_DESTROYED' }, 'aborted', 'UND_ERR_DESTROYED'],
    [{ code: 'EWHATEVER' }, 'other', 'EWHATEVER'],
  ] as const)('%j is %s (%s)', (err, kind, code) => {
    expect(toRequestError({ message: 'm', ...err })).toEqual({ kind, code, message: 'm' });
  });
});
