import type { IncomingMessage } from 'node:http';

export type BodyResult =
  | { kind: 'ok'; data: Buffer }
  | { kind: 'too-large'; bytes: number }
  /** No byte arrived for `ms`: answer 408 and close (the caller's reply carries `connection: close`). */
  | { kind: 'stalled'; ms: number }
  | { kind: 'aborted' };

/** Discarded bytes after a refusal before we stop listening and drop the connection. */
const DRAIN_CAP = 64 * 1024 * 1024;

/**
 * Reads a request body, counting bytes as they arrive and giving up the moment `limit` is passed,
 * so a 20 MB body is refused after 10 MB, not after buffering it (and a declared Content-Length
 * over the limit is refused before reading anything). The rest of a refused upload is read and
 * thrown away, so the client (still sending) gets the answer instead of a reset. A body that
 * sends nothing for `stallMs` is given up on, so a stalled upload holds nothing for long.
 */
export function readBody(req: IncomingMessage, limit: number, stallMs: number): Promise<BodyResult> {
  const declared = req.headers['content-length'];
  if (declared !== undefined) {
    const n = Number(declared);
    if (n > limit) {
      discard(req, 0);
      return Promise.resolve({ kind: 'too-large', bytes: n });
    }
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let lastByteAt = Date.now();
    // One timer per body, re-armed only when it fires early: a data event just stamps the time.
    const onStallCheck = (): void => {
      const idle = Date.now() - lastByteAt;
      if (idle < stallMs) {
        timer = setTimeout(onStallCheck, stallMs - idle);
        return;
      }
      cleanup();
      chunks.length = 0;
      req.on('error', () => undefined);
      resolve({ kind: 'stalled', ms: stallMs });
    };
    let timer = setTimeout(onStallCheck, stallMs);
    const onData = (chunk: Buffer): void => {
      lastByteAt = Date.now();
      size += chunk.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        discard(req, size);
        resolve({ kind: 'too-large', bytes: size });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve({
        kind: 'ok',
        data: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size),
      });
    };
    const onGone = (): void => {
      cleanup();
      resolve({ kind: 'aborted' });
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onGone);
  });
}

function discard(req: IncomingMessage, already: number): void {
  let seen = already;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_CAP) req.socket.destroy();
  });
  req.on('error', () => undefined);
  req.resume();
}
