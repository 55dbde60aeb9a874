import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import type { WebhookRecord } from '../../src/core/record.js';
import { startWebhookReceiver, type WebhookAnswers } from '../../src/runner/webhook-receiver.js';

/*
 * Issue 52: the webhook receiver counts each job's deliveries only when it fails some on purpose,
 * and then for a bounded number of jobs (the latest), so a soak's memory does not grow with its
 * webhooks.
 */

/** Posts one delivery of each job in turn; the answers the receiver gave, in order. */
async function answers(
  jobs: readonly string[],
  answer: WebhookAnswers,
  countedJobs: number,
): Promise<number[]> {
  const records: WebhookRecord[] = [];
  let seq = 0;
  const receiver = await startWebhookReceiver({
    clock: systemClock,
    emit: (r) => records.push(r),
    nextSeq: () => ++seq,
    answers: answer,
    countedJobs,
  });
  try {
    const got: number[] = [];
    for (const id of jobs) {
      const res = await fetch(receiver.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id, status: 'COMPLETED' }),
      });
      await res.text();
      got.push(res.status);
    }
    expect(records.map((r) => r.answered)).toEqual(got);
    return got;
  } finally {
    await receiver.close();
  }
}

describe('the deliveries the webhook receiver counts', () => {
  it('fail each job once, for the jobs it still counts: the oldest past the cap is counted afresh', async () => {
    const failOnce = { status: 500, failAttempts: 1 };
    // a, b, c fail once; a's retry is answered 200 while a is among the last 3 counted.
    expect(await answers(['a', 'b', 'c', 'a'], failOnce, 3)).toEqual([500, 500, 500, 200]);
    // With 2 counted, c pushed a out: its retry is taken for a first delivery.
    expect(await answers(['a', 'b', 'c', 'a'], failOnce, 2)).toEqual([500, 500, 500, 500]);
  });
});
