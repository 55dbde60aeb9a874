import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { LoopHeartbeat } from '../../src/core/loop-heartbeat.js';
import type { WebhookRecord } from '../../src/core/record.js';
import { startWebhookReceiver } from '../../src/runner/webhook-receiver.js';

/**
 * A process that POSTs a delivery 300 ms after it is told to go, so the delivery comes in while
 * this loop is held, however long that process took to start.
 */
async function outsideSender(url: string): Promise<{ go: () => void; closed: Promise<number | null> }> {
  const post = `fetch(${JSON.stringify(url)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"job-1","status":"COMPLETED"}' }).then((r) => r.text())`;
  // Real time: the sender is a real process posting over a real socket.
  const script = `process.stdin.once('data', () => setTimeout(() => ${post}, 300)); process.stdout.write('ready')`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'ignore'] });
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  return { go: () => child.stdin.end('go'), closed };
}

async function receive(holdMs: number): Promise<WebhookRecord> {
  const records: WebhookRecord[] = [];
  const beat = new LoopHeartbeat(systemClock);
  let seq = 0;
  const receiver = await startWebhookReceiver({
    clock: systemClock,
    emit: (r) => records.push(r),
    nextSeq: () => ++seq,
    loopGapAt: (now) => beat.gapAt(now),
  });
  try {
    const sender = await outsideSender(receiver.url);
    sender.go();
    // This loop held up (a stopped process, a long GC pause) while the delivery comes in.
    // Real time: the real event loop held up is what the receiver must survive.
    const until = performance.now() + holdMs;
    while (performance.now() < until) {
      // busy: nothing else runs
    }
    expect(await sender.closed).toBe(0);
  } finally {
    await receiver.close();
    beat.close();
  }
  expect(records).toHaveLength(1);
  return records[0] as WebhookRecord;
}

describe('the webhook receiver and a held-up loop', () => {
  it('a delivery read after the loop was held says how long it may have waited', async () => {
    const r = await receive(2500);
    expect(r.answered).toBe(200);
    expect(r.loopGapMs).toBeGreaterThanOrEqual(1500);
  }, 20_000);

  it('one read by a loop that kept its beat says nothing', async () => {
    const r = await receive(0);
    // A loaded host may hold any loop for a beat or two; never for the seconds above.
    expect(r.loopGapMs ?? 0).toBeLessThan(1500);
  }, 20_000);
});
