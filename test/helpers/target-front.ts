import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Pool } from 'undici';
import type { ManualClock } from '../../src/core/manual-clock.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';

export interface TargetFront {
  /** The front's `/v2/<endpoint>` URL, a run's `--target`. */
  url: string;
  apiKey: string;
  /** Answers forwarded so far. */
  answered: () => number;
  /** From now on nothing is answered, as by a process stopped with SIGSTOP: connections open, requests held. */
  freeze: () => void;
  /** Gone, as a process killed with SIGKILL: open connections reset, new ones refused. */
  kill: () => void;
  close: () => Promise<void>;
}

/** Hop-by-hop headers stay with their own connection; the body is forwarded whole. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (!HOP.has(k) && v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * An emulator in this thread on `clock` behind a front on loopback that a test can freeze or kill
 * the way a signal does a target process, while the run on the same clock is driven by a
 * ClockDriver (issue 46): the run's timeouts and stall watch then play out on the clock. Forwarding
 * goes through undici, so the driver counts each forwarded request open until its answer.
 */
export async function targetFront(
  clock: ManualClock,
  /** Freeze or kill it once it has answered this many requests (a target that took some load). */
  after?: { answers: number; then: 'freeze' | 'kill' },
): Promise<TargetFront> {
  const emulator: EmulatorHandle = await startEmulator({ port: 0, clock });
  const origin = new URL(emulator.url).origin;
  const upstream = new Pool(origin, { connections: 64 });
  let frozen = false;
  let killed = false;
  let answered = 0;
  const sockets = new Set<Socket>();
  const reply = (
    res: ServerResponse,
    status: number,
    headers: Record<string, string>,
    body: Buffer,
  ): void => {
    if (frozen || killed) return;
    answered++;
    res.writeHead(status, headers).end(body);
    if (answered === after?.answers) (after.then === 'freeze' ? freeze : kill)();
  };
  const freeze = (): void => {
    frozen = true;
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (frozen || killed) return;
      upstream
        .request({
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          headers: forwardable(req.headers),
          body: chunks.length > 0 ? Buffer.concat(chunks) : null,
        })
        .then(async (up) => {
          const body = Buffer.from(await up.body.arrayBuffer());
          reply(res, up.statusCode, forwardable(up.headers), body);
        })
        .catch(() => res.destroy());
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const path = new URL(emulator.url).pathname;
  function kill(): void {
    if (killed) return;
    killed = true;
    server.close();
    for (const s of sockets) s.destroy();
  }
  return {
    url: `http://127.0.0.1:${String(port)}${path}`,
    apiKey: emulator.apiKey,
    answered: () => answered,
    freeze,
    kill,
    close: async () => {
      kill();
      await upstream.close();
      await emulator.close();
    },
  };
}
