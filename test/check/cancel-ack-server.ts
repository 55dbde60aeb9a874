import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small job server that is NOT our emulator (issue 39): it acknowledges a cancel before the
 * cancel takes effect, as a server whose worker stops at its next check does. /cancel answers
 * IN_PROGRESS and the job shows CANCELLED only `settleMs` later. Our emulator answers a cancel with
 * CANCELLED at once, so only this server walks the path where the checks must remember that we
 * asked. With `cancelsOnItsOwn`, it shows a job CANCELLED `settleMs` after it started, asked or not.
 */
export interface CancelAckOptions {
  settleMs?: number;
  cancelsOnItsOwn?: boolean;
}

export interface CancelAckServer {
  base: string;
  close(): Promise<void>;
}

interface Job {
  id: string;
  /** When the job shows CANCELLED: set by a cancel (or at start, for `cancelsOnItsOwn`). */
  cancelledAt: number | undefined;
}

export async function startCancelAckServer(o: CancelAckOptions = {}): Promise<CancelAckServer> {
  const settleMs = o.settleMs ?? 150;
  const jobs = new Map<string, Job>();
  let n = 0;
  // Real time: a real loopback server (not our emulator); its cancels settle on the wall clock.
  const statusOf = (j: Job): string =>
    j.cancelledAt !== undefined && Date.now() >= j.cancelledAt ? 'CANCELLED' : 'IN_PROGRESS';
  const view = (j: Job, status = statusOf(j)): Record<string, unknown> => ({
    id: j.id,
    status,
    delayTime: 1,
    ...(status === 'CANCELLED' ? { executionTime: 5 } : {}),
  });
  const health = (): Record<string, unknown> => {
    const running = [...jobs.values()].filter((j) => statusOf(j) === 'IN_PROGRESS').length;
    return {
      jobs: { completed: 0, failed: 0, inProgress: running, inQueue: 0, retried: 0 },
      workers: { idle: 1, running: 0 },
    };
  };
  const send = (res: ServerResponse, code: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const [v2, , op = '', id] = new URL(req.url ?? '/', 'http://x').pathname.split('/').filter(Boolean);
      const job = id === undefined ? undefined : jobs.get(id);
      if (v2 !== 'v2') return send(res, 404, { detail: 'Not Found' });
      if (op === 'health') return send(res, 200, health());
      if (op === 'run') {
        const j: Job = {
          id: `ack-${String(++n)}`,
          // Real time: a real loopback server; its cancels settle on the wall clock.
          cancelledAt: o.cancelsOnItsOwn ? Date.now() + settleMs : undefined,
        };
        jobs.set(j.id, j);
        return send(res, 200, { id: j.id, status: 'IN_QUEUE' });
      }
      if (!job) return send(res, 404, { error: 'job not found' });
      if (op === 'status') return send(res, 200, view(job));
      if (op !== 'cancel') return send(res, 404, { detail: 'Not Found' });
      // Acknowledged, not yet done: the answer shows the job as it is now.
      const now = statusOf(job);
      // Real time: a real loopback server; its cancels settle on the wall clock.
      job.cancelledAt ??= Date.now() + settleMs;
      return send(res, 200, view(job, now));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${String(port)}/v2/ep`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
