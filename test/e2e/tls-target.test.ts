import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSummary, root, tempDir } from './helpers.js';

/*
 * Issue 13 item 9, through the built bin: a target whose certificate is not trusted is a TLS
 * failure by name (not "other"), in the terminal report and summary.json, and, like a refused
 * port, a target that cannot be reached (exit 3) rather than a whole run of failures.
 */

const bin = join(root, 'dist/cli/main.js');
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('JOBSTORM_')));
let certDir = '';
let server: Server;
let port = 0;

beforeAll(async () => {
  expect(existsSync(bin)).toBe(true);
  certDir = await mkdtemp(join(tmpdir(), 'jobstorm-tls-'));
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
    join(certDir, 'key.pem'),
    '-out',
    join(certDir, 'cert.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
  ]);
  server = createServer(
    { key: await readFile(join(certDir, 'key.pem')), cert: await readFile(join(certDir, 'cert.pem')) },
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
}, 180_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(certDir, { recursive: true, force: true });
});

describe('a target with a self-signed certificate', () => {
  it('is reported as tls with its code, and ends the run early as unreachable (exit 3)', async () => {
    const out = join(await tempDir('tls'), 'out');
    // A minute at 50 arrivals/s: only the unreachable-target stop ends it well before that.
    const args = [
      bin,
      'run',
      join(root, 'scenarios/smoke.yaml'),
      '--target',
      `https://127.0.0.1:${String(port)}/v2/x`,
      '--api-key',
      'k',
      '--duration',
      '60s',
      '--rate-scale',
      '10',
      '--out',
      out,
      '--record',
    ];
    // Real time: the built CLI is a real process and the TLS server a real socket.
    const started = performance.now();
    const exit = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, args, { cwd: root, env }, (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
      });
    });
    expect(exit.code, exit.stderr).toBe(3);
    expect(performance.now() - started).toBeLessThan(40_000);
    expect(exit.stderr).toMatch(/could not be reached/);
    expect(exit.stdout).toMatch(/transport errors: tls \d+/);
    const summary = await readSummary(out);
    expect(summary.errors.tls).toBeGreaterThan(0);
    expect(summary.errors.other).toBeUndefined();
    const records = (await readFile(join(out, 'records.ndjson'), 'utf8'))
      .split('\n')
      .filter((l) => l.includes('"type":"exchange"'));
    expect(records.length).toBeGreaterThan(0);
    for (const line of records)
      expect(JSON.parse(line)).toMatchObject({ error: { kind: 'tls', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' } });
  }, 120_000);
});
