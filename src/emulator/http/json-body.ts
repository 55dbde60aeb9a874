import type { IncomingMessage } from 'node:http';
import { BODY_TIMEOUT_MS } from '../options.js';
import { readBody } from './body.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-depth.js';

export type JsonBodyResult =
  | { kind: 'ok'; value: unknown; bytes: number }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'invalid'; message: string }
  | { kind: 'stalled'; ms: number }
  | { kind: 'aborted' };

/**
 * Reads and parses a JSON body within `limit` bytes. Nesting is bounded before parsing (a linear
 * scan), so no value that reaches the rest of the emulator is deeper than MAX_JSON_DEPTH. A body
 * that sends nothing for `stallMs` is 'stalled' (answer 408 with `connection: close`).
 */
export async function readJson(
  req: IncomingMessage,
  limit: number,
  stallMs = BODY_TIMEOUT_MS,
): Promise<JsonBodyResult> {
  const body = await readBody(req, limit, stallMs);
  if (body.kind !== 'ok') return body;
  if (body.data.length === 0)
    return { kind: 'invalid', message: 'request body is empty; expected a JSON object' };
  if (nestedDeeperThan(body.data, MAX_JSON_DEPTH)) {
    return {
      kind: 'invalid',
      message: `request body is JSON nested deeper than ${String(MAX_JSON_DEPTH)} levels (the emulator's limit on arrays and objects inside each other)`,
    };
  }
  try {
    return { kind: 'ok', value: JSON.parse(body.data.toString('utf8')) as unknown, bytes: body.data.length };
  } catch (err) {
    return { kind: 'invalid', message: `request body is not valid JSON: ${(err as Error).message}` };
  }
}

/** The 408 message for a body that stopped arriving. */
export function stalledMessage(ms: number): string {
  return `request body stalled: no bytes for ${String(ms)} ms; the connection is closed`;
}
