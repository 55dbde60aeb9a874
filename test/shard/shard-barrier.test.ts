import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import type { Summary } from '../../src/report/summary.js';
import { bin, jobstorm, sleep, startFront, summaryOf, type Front, type Shard } from './shard-process.js';

/*
 * Issue 38: three shard processes of the built CLI, launched seconds apart, each leaving from its
 * own loopback address (127.0.0.2, .3, .4) through a front that counts requests by address, meet
 * at --barrier and start together; one that ends early (Ctrl-C, or its own share failing an
 * abortOnFail threshold) stops the others; one that never comes ends the others with exit 3
 * before they send anything.
 */

const ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];

/** One flow with one step, so every arrival is exactly one submit (arrivals are comparable). */
function scenario(seconds: number, thresholds = ''): string {
  return `name: shard-barrier
phases:
  - { duration: ${String(seconds)}s, rate: 30 }
flows:
  - name: submit
    steps:
      - run: { input: { sleep_ms: 50 } }
${thresholds}`;
}

const arrivals = (s: Summary): number => (s.operations.run?.requests ?? 0) + s.dropped.total;

describe('shards at a barrier', () => {
  let emulator: EmulatorHandle | undefined;
  let front: Front | undefined;
  let dir = '';

  beforeAll(async () => {
    expect(existsSync(bin)).toBe(true);
    dir = await mkdtemp(join(tmpdir(), 'jobstorm-barrier-'));
    emulator = await startEmulator({
      port: 0,
      workersMin: 10,
      workersMax: 10,
      coldStartMs: 0,
      requestsPerWorker: 100_000,
    });
    front = await startFront(emulator.url);
  }, 120_000);

  afterAll(async () => {
    await front?.close();
    await emulator?.close();
  });

  /** Shard i of 3 (1-based) from its own address, after `delayMs`. */
  async function shard(
    name: string,
    file: string,
    i: number,
    delayMs: number,
    extra: readonly string[] = [],
  ): Promise<Shard> {
    if (!front || !emulator) throw new Error('no target');
    // Real time: shard processes of the built CLI start apart on real time.
    await sleep(delayMs);
    return jobstorm([
      'run',
      file,
      '--target',
      front.url,
      '--api-key',
      emulator.apiKey,
      '--shard',
      `${String(i)}/3`,
      '--barrier',
      join(dir, name, 'barrier'),
      '--local-address',
      ADDRESSES[i - 1] ?? '',
      '--out',
      join(dir, name, `shard-${String(i)}`),
      '--graceful-stop',
      '2s',
      '--quiet',
      ...extra,
    ]);
  }

  async function scenarioFile(name: string, text: string): Promise<string> {
    const file = join(dir, `${name}.yaml`);
    await writeFile(file, text);
    return file;
  }

  it(
    'three shards launched 0, 1.5 and 3 s apart start within 0.5 s, merge without a hole, and equal an unsharded run',
    { timeout: 120_000 },
    async () => {
      if (!front || !emulator) throw new Error('no target');
      const file = await scenarioFile('together', scenario(3));
      const launched = await Promise.all([0, 1500, 3000].map((d, i) => shard('together', file, i + 1, d)));
      const exits = await Promise.all(launched.map((s) => s.exit));
      for (const e of exits) expect(e.code, e.stderr).toBe(0);
      const dirs = [1, 2, 3].map((i) => join(dir, 'together', `shard-${String(i)}`));
      const shards = await Promise.all(dirs.map(summaryOf));
      const starts = shards.map((s) => s.run.startMs);
      expect(Math.max(...starts) - Math.min(...starts)).toBeLessThanOrEqual(500);
      for (const s of shards) expect(s.run.startAt?.via).toBe('barrier');
      expect(new Set(shards.map((s) => s.run.startAt?.at)).size).toBe(1);
      // Each shard's requests left from its own address.
      for (const a of ADDRESSES) expect(front.bySource.get(a) ?? 0).toBeGreaterThan(0);

      const merged = join(dir, 'together', 'merged');
      const m = jobstorm(['merge', ...dirs, '--out', merged]);
      const merge = await m.exit;
      expect(merge.code, merge.stderr).toBe(0);
      expect(merge.stderr).not.toContain('apart');
      const ms = await summaryOf(merged);
      expect(ms.run.startSpreadMs).toBeLessThanOrEqual(500);
      expect(ms.run.missingShards).toBeUndefined();
      // No hole: every second from the first submit to the last has submits.
      const perSecond = ms.series.ops.run?.requests ?? [];
      const first = perSecond.findIndex((n) => n > 0);
      const last = perSecond.length - 1 - [...perSecond].reverse().findIndex((n) => n > 0);
      expect(last - first).toBeGreaterThanOrEqual(2);
      expect(
        perSecond.slice(first, last + 1).every((n) => n > 0),
        JSON.stringify(perSecond),
      ).toBe(true);

      const whole = join(dir, 'together', 'whole');
      const u = await jobstorm([
        'run',
        file,
        '--target',
        emulator.url,
        '--api-key',
        emulator.apiKey,
        '--out',
        whole,
        '--quiet',
      ]).exit;
      expect(u.code, u.stderr).toBe(0);
      const us = await summaryOf(whole);
      expect(arrivals(us)).toBe(90);
      expect(arrivals(ms)).toBe(arrivals(us));
    },
  );

  it(
    'Ctrl-C to one shard stops the others within a few seconds, and each of them and the merge names it',
    { timeout: 120_000 },
    async () => {
      if (!front) throw new Error('no target');
      const file = await scenarioFile('ctrl-c', scenario(20));
      const launched = await Promise.all([1, 2, 3].map((i) => shard('ctrl-c', file, i, 0)));
      // Wait until the load runs on every shard, then Ctrl-C shard 2.
      const seen = (): number => front?.bySource.get('127.0.0.3') ?? 0;
      const before = seen();
      // Real time: waits for a real shard process to send.
      for (let i = 0; i < 200 && seen() <= before + 10; i++) await sleep(100);
      const sentAt = performance.now();
      launched[1]?.child.kill('SIGINT');
      const exits = await Promise.all(launched.map((s) => s.exit));
      for (const i of [0, 2]) {
        const e = exits[i];
        if (!e) throw new Error('no exit');
        expect((e.endedAt - sentAt) / 1000, e.stderr).toBeLessThan(8);
        expect(e.stderr).toContain('stopped by shard 2/3: interrupted (Ctrl-C or SIGTERM)');
      }
      const dirs = [1, 2, 3].map((i) => join(dir, 'ctrl-c', `shard-${String(i)}`));
      const shards = await Promise.all(dirs.map(summaryOf));
      for (const s of [shards[0], shards[2]]) {
        expect(s?.run.stoppedBy).toMatchObject({ shard: '2/3', reason: 'interrupted (Ctrl-C or SIGTERM)' });
        expect(s?.run.end).toBe('interrupted');
        expect(s?.run.durationMs).toBeLessThan(15_000);
      }
      expect(shards[1]?.run.stoppedBy).toBeUndefined();
      const merged = join(dir, 'ctrl-c', 'merged');
      const merge = await jobstorm(['merge', ...dirs, '--out', merged]).exit;
      const ms = await summaryOf(merged);
      expect(ms.run.stoppedBy?.shard).toBe('2/3');
      expect(ms.verdict.status).toBe('interrupted');
      expect(ms.verdict.reasons.join('\n')).toContain('shard 2/3 stopped the run');
      expect(merge.stderr).toContain('shard 2/3 stopped the run: interrupted (Ctrl-C or SIGTERM)');
    },
  );

  it(
    'a shard whose own share fails an abortOnFail threshold stops the others, and the merged verdict names it',
    { timeout: 120_000 },
    async () => {
      if (!front) throw new Error('no target');
      // Only shard 2's submits fail: the threshold can only fail on its share.
      front.failSubmitsFrom = '127.0.0.3';
      try {
        const file = await scenarioFile(
          'abort',
          scenario(20, 'thresholds:\n  - { threshold: "rate(5xx) < 10%", window: 1s, abortOnFail: true }\n'),
        );
        const launched = await Promise.all([1, 2, 3].map((i) => shard('abort', file, i, 0)));
        const exits = await Promise.all(launched.map((s) => s.exit));
        const dirs = [1, 2, 3].map((i) => join(dir, 'abort', `shard-${String(i)}`));
        const shards = await Promise.all(dirs.map(summaryOf));
        expect(shards[1]?.run.end, exits[1]?.stderr).toBe('aborted');
        const stoppedAt = Date.parse(shards[0]?.run.stoppedBy?.at ?? '');
        for (const i of [0, 2]) {
          const s = shards[i];
          expect(s?.run.stoppedBy?.shard, exits[i]?.stderr).toBe('2/3');
          expect(s?.run.stoppedBy?.reason).toContain('aborted: rate(5xx) < 10% over 1s');
          expect(exits[i]?.stderr).toContain('stopped by shard 2/3: aborted: rate(5xx) < 10%');
          // They ended within a few seconds of the notice (drain and graceful stop included).
          const ended = (s?.run.startMs ?? 0) + (s?.run.durationMs ?? 0);
          expect((ended - stoppedAt) / 1000).toBeLessThan(5);
        }
        const merged = join(dir, 'abort', 'merged');
        await jobstorm(['merge', ...dirs, '--out', merged]).exit;
        const ms = await summaryOf(merged);
        expect(ms.run.end).toBe('aborted');
        expect(ms.verdict.status).toBe('failed');
        expect(ms.verdict.reasons.join('\n')).toContain('shard 2/3 stopped the run');
      } finally {
        front.failSubmitsFrom = undefined;
      }
    },
  );

  it(
    'a shard killed hard (SIGKILL, no stop notice) stops the others once its heartbeat is 10 s silent, and each of them and the merge names it',
    { timeout: 120_000 },
    async () => {
      if (!front) throw new Error('no target');
      const file = await scenarioFile('killed', scenario(40));
      const launched = await Promise.all([1, 2, 3].map((i) => shard('killed', file, i, 0)));
      const seen = (): number => front?.bySource.get('127.0.0.3') ?? 0;
      const before = seen();
      // Real time: waits for a real shard process to send.
      for (let i = 0; i < 200 && seen() <= before + 10; i++) await sleep(100);
      const killedAt = performance.now();
      launched[1]?.child.kill('SIGKILL');
      const exits = await Promise.all(launched.map((s) => s.exit));
      const dirs = [1, 2, 3].map((i) => join(dir, 'killed', `shard-${String(i)}`));
      const notices = [];
      for (const i of [0, 2]) {
        const e = exits[i];
        if (!e) throw new Error('no exit');
        // Not before the bound (its last beat was at most a second before the kill), and within
        // the bound, a poll, the drain and the graceful stop after it.
        const after = (e.endedAt - killedAt) / 1000;
        expect(after, e.stderr).toBeGreaterThanOrEqual(8.5);
        expect(after, e.stderr).toBeLessThan(17);
        expect(e.stderr).toContain('shard 2/3 stopped answering (no heartbeat for 10s)');
        const s = await summaryOf(dirs[i] ?? '');
        expect(s.run.stoppedBy).toMatchObject({
          shard: '2/3',
          reason: 'stopped answering (no heartbeat for 10s)',
        });
        expect(s.run.end).toBe('interrupted');
        notices.push(s.run.stoppedBy?.at);
      }
      // One notice, written by the first shard that saw the silence, for both.
      expect(new Set(notices).size).toBe(1);
      const merged = join(dir, 'killed', 'merged');
      const merge = await jobstorm(['merge', ...dirs, '--out', merged]).exit;
      const ms = await summaryOf(merged);
      expect(ms.run.missingShards).toEqual(['2/3']);
      expect(ms.run.stoppedBy?.shard).toBe('2/3');
      expect(ms.verdict.status).toBe('interrupted');
      const reasons = ms.verdict.reasons.join('\n');
      expect(reasons).toContain('shard 2/3 left no summary');
      expect(reasons).toContain('shard 2/3 stopped the run');
      expect(merge.stderr).toContain('shard 2/3 stopped the run: stopped answering (no heartbeat for 10s)');
    },
  );

  it(
    'shards that end normally, a second and then 12 s apart, stop no one: each said it ended',
    { timeout: 120_000 },
    async () => {
      const files = await Promise.all(
        [3, 4, 16].map((sec) => scenarioFile(`ends-${String(sec)}s`, scenario(sec))),
      );
      const launched = await Promise.all([1, 2, 3].map((i) => shard('ends', files[i - 1] ?? '', i, 0)));
      const exits = await Promise.all(launched.map((s) => s.exit));
      for (const e of exits) {
        expect(e.code, e.stderr).toBe(0);
        expect(e.stderr).not.toContain('stopped');
      }
      const shards = await Promise.all(
        [1, 2, 3].map((i) => summaryOf(join(dir, 'ends', `shard-${String(i)}`))),
      );
      for (const s of shards) {
        expect(s.run.end).toBe('completed');
        expect(s.run.stoppedBy).toBeUndefined();
      }
      // Shard 3 ran on well past the bound after shard 1's end.
      expect(shards[2]?.run.durationMs).toBeGreaterThanOrEqual(15_000);
    },
  );

  it(
    'when one shard never comes, the others give up at --barrier-timeout with exit 3 and send nothing',
    { timeout: 60_000 },
    async () => {
      if (!front) throw new Error('no target');
      const file = await scenarioFile('timeout', scenario(3));
      const before = ADDRESSES.map((a) => front?.bySource.get(a) ?? 0);
      // Shard 1 never comes (it alone would run the preflight, so the others send nothing at all).
      const launched = await Promise.all(
        [2, 3].map((i) => shard('timeout', file, i, 0, ['--barrier-timeout', '2s'])),
      );
      const exits = await Promise.all(launched.map((s) => s.exit));
      for (const e of exits) {
        expect(e.code, e.stderr).toBe(3);
        expect(e.stderr).toMatch(/barrier timeout: shards? 1\/3.* did not come to .* within 2s/);
        expect(e.stderr).toContain('nothing was sent');
      }
      const after = ADDRESSES.map((a) => front?.bySource.get(a) ?? 0);
      expect(after).toEqual(before);
    },
  );
});
