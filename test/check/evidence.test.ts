import { describe, expect, it } from 'vitest';
import { evidenceOf } from '../../src/check/evidence.js';
import { ex, webhook } from './records.js';

/* The evidence a finding shows: the request line, the status and the body, cut past 600 characters. */

describe('evidenceOf', () => {
  it('shows an exchange by method, path, status and body', () => {
    const r = ex('status', 0, 200, { id: 'j' }, { path: '/status/j' });
    expect(evidenceOf(r)).toEqual({ seq: r.seq, request: 'GET /status/j', status: 200, body: '{"id":"j"}' });
    const unanswered = ex('run', 0, undefined, undefined, { path: '/run' });
    expect(evidenceOf(unanswered)).toStrictEqual({ seq: unanswered.seq, request: 'POST /run' });
  });

  it('shows a webhook delivery by its path and answer', () => {
    const w = webhook(0, 'j', 500, { id: 'j' });
    expect(evidenceOf(w)).toEqual({
      seq: w.seq,
      request: 'POST /webhook (webhook delivery, answered 500)',
      body: '{"id":"j"}',
    });
    expect(evidenceOf(webhook(0, 'j', 200, undefined))).not.toHaveProperty('body');
  });

  it('keeps a body of 600 characters whole and cuts a longer one, saying its length', () => {
    const exactly = 'x'.repeat(598);
    expect(evidenceOf(ex('status', 0, 200, exactly)).body).toBe(JSON.stringify(exactly));
    const longer = 'x'.repeat(599);
    expect(evidenceOf(ex('status', 0, 200, longer)).body).toBe(`"${'x'.repeat(599)}… (601 chars)`);
  });
});
