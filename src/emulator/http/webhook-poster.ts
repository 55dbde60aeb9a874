import { Agent, request } from 'undici';
import type { WebhookPoster } from '../webhooks.js';

/** Seconds a receiver may take to answer before the attempt counts as failed. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** Webhook deliveries over HTTP with undici, on an agent of their own that closes with the server. */
export function createWebhookPoster(): { post: WebhookPoster; close: () => Promise<void> } {
  const agent = new Agent({ connections: 32, headersTimeout: ATTEMPT_TIMEOUT_MS, bodyTimeout: ATTEMPT_TIMEOUT_MS });
  const post: WebhookPoster = async (url, body) => {
    const res = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'jobstorm-emulator' },
      dispatcher: agent,
    });
    await res.body.dump();
    return res.statusCode;
  };
  return { post, close: () => agent.close() };
}
