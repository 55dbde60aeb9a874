import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { payloadChunks } from '../json-payload.js';
import type { WebhookPoster } from '../webhooks.js';

/** Seconds a receiver may take to answer before the attempt counts as failed. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * Webhook deliveries over HTTP with undici, on an agent of their own that closes with the server.
 * A body with generated output is streamed from its pieces, never built whole.
 */
export function createWebhookPoster(): { post: WebhookPoster; close: () => Promise<void> } {
  const agent = new Agent({
    connections: 32,
    headersTimeout: ATTEMPT_TIMEOUT_MS,
    bodyTimeout: ATTEMPT_TIMEOUT_MS,
  });
  const post: WebhookPoster = async (url, payload) => {
    const streamed = payload.gaps.length > 0;
    const res = await request(url, {
      method: 'POST',
      body: streamed ? Readable.from(payloadChunks(payload), { objectMode: false }) : payload.texts[0],
      headers: {
        'content-type': 'application/json',
        'user-agent': 'jobstorm-emulator',
        ...(streamed ? { 'content-length': String(payload.bytes) } : {}),
      },
      dispatcher: agent,
    });
    await res.body.dump();
    return res.statusCode;
  };
  return { post, close: () => agent.close() };
}
