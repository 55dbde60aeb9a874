import type { ServerResponse } from 'node:http';
import { payloadChunks, serializePayload, type JsonPayload } from '../json-payload.js';

/**
 * Writes a JSON response: one writeHead and one end (the cheapest path through node:http), or,
 * for a body with generated output, its pieces with backpressure. Never throws: a body that cannot
 * be serialized is an emulator bug, answered as such.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extra?: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  let payload: JsonPayload;
  try {
    payload = serializePayload(body);
  } catch (err) {
    lastResort(res, err);
    return;
  }
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': payload.bytes,
  };
  if (extra !== undefined) Object.assign(headers, extra);
  res.writeHead(status, headers);
  if (payload.gaps.length === 0) res.end(payload.texts[0]);
  else pump(res, payloadChunks(payload));
}

/** Writes the pieces as the socket takes them; stops if the client goes away. */
function pump(res: ServerResponse, chunks: Iterator<string | Buffer>): void {
  const next = (): void => {
    for (;;) {
      if (res.destroyed) return;
      const c = chunks.next();
      if (c.done === true) {
        res.end();
        return;
      }
      if (!res.write(c.value)) {
        res.once('drain', next);
        return;
      }
    }
  };
  next();
}

/** Queue API errors: `{"error": "..."}` saying what is wrong, naming the field or parameter. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  extra?: Record<string, string>,
): void {
  sendJson(res, status, { error: message }, extra);
}

/** REST v1 errors: `{"message": "..."}` as the v1 document declares. */
export function sendMessage(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { message });
}

/**
 * The answer to an exception in a route: a bug of ours, never the client's, so a 500 that says so
 * and the server serves on. If the answer had begun, the connection is cut (a half-sent body must
 * not look complete).
 */
export function lastResort(res: ServerResponse, err: unknown): void {
  try {
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    const text = JSON.stringify({ error: `emulator bug: ${message.slice(0, 500)}` });
    res.writeHead(500, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      connection: 'close',
    });
    res.end(text);
  } catch {
    res.destroy();
  }
}
