import type { ServerResponse } from 'node:http';

/** Writes a JSON response in one go (one writeHead, one end: the cheapest path through node:http). */
export function sendJson(res: ServerResponse, status: number, body: unknown, extra?: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
  if (extra !== undefined) Object.assign(headers, extra);
  res.writeHead(status, headers);
  res.end(text);
}

/** Queue API errors: `{"error": "..."}` saying what is wrong, naming the field or parameter. */
export function sendError(res: ServerResponse, status: number, message: string, extra?: Record<string, string>): void {
  sendJson(res, status, { error: message }, extra);
}

/** REST v1 errors: `{"message": "..."}` as the v1 document declares. */
export function sendMessage(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { message });
}
