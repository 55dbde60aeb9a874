import type { IncomingMessage } from 'node:http';
import { readBody } from './body.js';

export type JsonBodyResult =
  | { kind: 'ok'; value: unknown }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'invalid'; message: string }
  | { kind: 'aborted' };

/** Reads and parses a JSON body within `limit` bytes. */
export async function readJson(req: IncomingMessage, limit: number): Promise<JsonBodyResult> {
  const body = await readBody(req, limit);
  if (body.kind !== 'ok') return body;
  if (body.data.length === 0) return { kind: 'invalid', message: 'request body is empty; expected a JSON object' };
  try {
    return { kind: 'ok', value: JSON.parse(body.data.toString('utf8')) as unknown };
  } catch (err) {
    return { kind: 'invalid', message: `request body is not valid JSON: ${(err as Error).message}` };
  }
}
