import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

const JOB = JSON.stringify({ id: 'jobstorm-warmup', status: 'IN_QUEUE' });
const DONE = JSON.stringify({ id: 'jobstorm-warmup', status: 'COMPLETED', output: { ok: true } });

function response(body: string): string {
  return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${String(Buffer.byteLength(body))}\r\nkeep-alive: timeout=5\r\n\r\n${body}`;
}

/** A submit is queued, anything else (a status) is done. */
const QUEUED = response(JOB);
const FINISHED = response(DONE);
const HEAD_END = '\r\n\r\n';
const LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

/**
 * Answers the requests of one connection as they complete (headers, then `content-length` bytes
 * of body). The warm-up's client sends no chunked bodies; one would be answered at its head and
 * the rest read as a malformed request, which the client records as a failure: harmless here.
 */
function serve(socket: Socket): void {
  let pending = '';
  socket.setEncoding('latin1');
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: string) => {
    pending += chunk;
    for (;;) {
      const head = pending.indexOf(HEAD_END);
      if (head < 0) return;
      const length = LENGTH.exec(pending.slice(0, head));
      const end = head + HEAD_END.length + (length ? Number(length[1]) : 0);
      if (pending.length < end) return;
      const submit = pending.startsWith('POST');
      pending = pending.slice(end);
      socket.write(submit ? QUEUED : FINISHED);
    }
  });
}

/**
 * The local sink of the warm-up (readiness.ts), on loopback: canned answers written straight to
 * the socket. The warm-up is there to run jobstorm's client and record code, not an HTTP server:
 * node:http's parser and response objects cost the start as much CPU again as the client's side.
 */
export class WarmupSink {
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async open(): Promise<WarmupSink> {
    const server = createServer(serve);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return new WarmupSink(server, (server.address() as AddressInfo).port);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
