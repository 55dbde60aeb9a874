import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heartbeatFile, readJson, STOP_FILE } from '../../src/session/barrier/barrier-files.js';
import type { StopNotice } from '../../src/session/barrier/meeting.js';
import { ShardBarrier } from '../../src/session/barrier/shard-barrier.js';
import { ManualClock } from '../../src/core/manual-clock.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { MANUAL_EPOCH_MS } from '../helpers/manual-target.js';

/*
 * Issue 38: a shard killed hard writes no stop notice; its peers see its heartbeat stop changing
 * and stop after the bound. A shard that ended normally said so, and its silence stops no one.
 * Short beats and bound here; the processes' test (shard-barrier.test.ts) uses the defaults. The
 * files are real; the beats, polls and silences run on a manual clock (issue 46), moved once each
 * poll's reads and writes are done.
 */

const SILENCE_MS = 800;

const clock = new ManualClock(0, MANUAL_EPOCH_MS);
const driver = new ClockDriver(clock);

async function barrierOf(index: number, count: number): Promise<{ folder: string; barrier: ShardBarrier }> {
  const folder = await mkdtemp(join(tmpdir(), 'jobstorm-heartbeat-'));
  return { folder, barrier: shardIn(folder, index, count) };
}

function shardIn(folder: string, index: number, count: number): ShardBarrier {
  return new ShardBarrier({
    folder,
    shard: { index, count },
    clock,
    timeoutMs: 10_000,
    who: 'test',
    beatMs: 100,
    silenceMs: SILENCE_MS,
  });
}

function watching(b: ShardBarrier): { heard: StopNotice[]; at: number[]; cancel: () => void } {
  const heard: StopNotice[] = [];
  const at: number[] = [];
  const cancel = b.watch((n) => {
    heard.push(n);
    at.push(clock.now());
  });
  return { heard, at, cancel };
}

describe('heartbeats in the barrier folder', () => {
  it('a peer whose heartbeat stops changing stops the others after the bound, in its name', async () => {
    const { folder, barrier } = await barrierOf(1, 2);
    // Shard 2 beat once, then was killed.
    await writeFile(join(folder, heartbeatFile(2, 2)), '{"shard":"2/2","beat":1,"atMs":1}\n');
    const started = clock.now();
    const w = watching(barrier);
    try {
      await driver.advanceBy(SILENCE_MS * 3);
      expect(w.heard).toHaveLength(1);
      expect(w.heard[0]).toMatchObject({
        shard: '2/2',
        reason: 'stopped answering (no heartbeat for 800ms)',
        by: '1/2',
      });
      const waited = (w.at[0] ?? 0) - started;
      expect(waited).toBeGreaterThanOrEqual(SILENCE_MS);
      // Polls come every 250 ms: the first one reads the beat (silence counts from there), the
      // first one past the bound sees the silence.
      expect(waited).toBe(250 + SILENCE_MS + 200);
      // Written for every shard to stop on the same notice.
      expect(await readJson(folder, STOP_FILE)).toMatchObject({ shard: '2/2', by: '1/2' });
    } finally {
      w.cancel();
      await barrier.finish();
    }
  });

  it('a peer that never beat is silent from the start of the watch', async () => {
    const { barrier } = await barrierOf(2, 3);
    const w = watching(barrier);
    try {
      await driver.advanceBy(SILENCE_MS * 3);
      expect(w.heard[0]?.shard).toBe('1/3');
      expect(w.heard[0]?.reason).toBe('stopped answering (no heartbeat for 800ms)');
    } finally {
      w.cancel();
      await barrier.finish();
    }
  });

  it('beating peers stop no one, nor does one that ended and said so, silent after past the bound', async () => {
    const { folder, barrier: one } = await barrierOf(1, 2);
    const two = shardIn(folder, 2, 2);
    const w1 = watching(one);
    const w2 = watching(two);
    try {
      await driver.advanceBy(SILENCE_MS * 2);
      expect(w1.heard).toEqual([]);
      expect(w2.heard).toEqual([]);
      w2.cancel();
      await two.finish();
      expect(await readJson(folder, heartbeatFile(2, 2))).toMatchObject({ shard: '2/2', done: true });
      await driver.advanceBy(SILENCE_MS * 2);
      expect(w1.heard).toEqual([]);
      expect(await readJson(folder, STOP_FILE)).toBeUndefined();
    } finally {
      w1.cancel();
      w2.cancel();
      await one.finish();
    }
  });

  it('a shard that never started writes no heartbeat, not even an end', async () => {
    const { folder, barrier } = await barrierOf(1, 2);
    await barrier.finish();
    expect(await readJson(folder, heartbeatFile(1, 2))).toBeUndefined();
  });
});
