import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import type { ManualClock } from '../../src/core/manual-clock.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import type { Summary } from '../../src/report/summary.js';
import { heartbeatFile, writeAtomic } from '../../src/session/barrier/barrier-files.js';
import { BEAT_MS } from '../../src/session/barrier/heartbeat.js';
import { ShardBarrier } from '../../src/session/barrier/shard-barrier.js';
import { cliClock, runCliOnClock } from '../helpers/cli-on-clock.js';
import { captureIo, type CapturedIo } from '../helpers/cli-io.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { quietLoop } from '../helpers/manual-target.js';
import { bin, jobstorm, sleep, startFront, summaryOf, type Front } from './shard-process.js';

/*
 * Issue 38: three shards, each leaving from its own loopback address (127.0.0.2, .3, .4) through a
 * front that counts requests by address, meet at --barrier and start together; one that ends early
 * (Ctrl-C, or its own share failing an abortOnFail threshold) stops the others; one that never
 * comes ends the others with exit 3 before they send anything.
 *
 * The meeting of separate processes is proven once with processes of the built CLI, launched
 * seconds apart. The rest is how the shards' clocks and timers play out (a stop's spread, a
 * heartbeat's silence, a barrier's timeout): the shards run in this process on one manual clock,
 * with the emulator (issue 46); the barrier folder is real, and the driver waits for its files.
 */

const ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
const EMULATOR = { workersMin: 10, workersMax: 10, coldStartMs: 0, requestsPerWorker: 100_000 };

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

let dir = '';

async function scenarioFile(name: string, text: string): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, text);
  return file;
}

/** `jobstorm merge` of `dirs`, in-process (it reads files; no time in it). */
async function merge(dirs: readonly string[], out: string): Promise<{ code: number; stderr: string }> {
  const io = captureIo({});
  const code = await runCli(['merge', ...dirs, '--out', out], io);
  return { code, stderr: io.stderr.join('\n') };
}

/** Shard i of 3's flags (1-based), from its own address, into `<dir>/<name>/shard-<i>`. */
function shardArgs(name: string, file: string, i: number, target: string, apiKey: string): string[] {
  return [
    'run',
    file,
    '--target',
    target,
    '--api-key',
    apiKey,
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
  ];
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobstorm-barrier-'));
});

describe('shards at a barrier, as processes of the built CLI', () => {
  let emulator: EmulatorHandle | undefined;
  let front: Front | undefined;

  beforeAll(async () => {
    expect(existsSync(bin)).toBe(true);
    emulator = await startEmulator({ port: 0, ...EMULATOR });
    front = await startFront(emulator.url);
  }, 120_000);

  afterAll(async () => {
    await front?.close();
    await emulator?.close();
  });

  it(
    'three shards launched 0, 1 and 2 s apart start within 0.5 s, merge without a hole, and equal an unsharded run',
    { timeout: 120_000 },
    async () => {
      if (!front || !emulator) throw new Error('no target');
      const { url, apiKey } = { url: front.url, apiKey: emulator.apiKey };
      const file = await scenarioFile('together', scenario(3));
      const launched = await Promise.all(
        [0, 1000, 2000].map(async (d, i) => {
          // Real time: shard processes of the built CLI start apart on real time.
          await sleep(d);
          return jobstorm(shardArgs('together', file, i + 1, url, apiKey));
        }),
      );
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
      const m = await merge(dirs, merged);
      expect(m.code, m.stderr).toBe(0);
      expect(m.stderr).not.toContain('apart');
      const ms = await summaryOf(merged);
      expect(ms.run.startSpreadMs).toBeLessThanOrEqual(500);
      expect(ms.run.missingShards).toBeUndefined();
      // No hole: every second from the first arrival due to the last has arrivals due (by the
      // shards' plans on the merged wall clock: a host that starves a shard bunches its answers,
      // but the seconds its arrivals were due in stay where the barrier put them).
      const perSecond = ms.series.due ?? [];
      const first = perSecond.findIndex((n) => n > 0);
      const last = perSecond.length - 1 - [...perSecond].reverse().findIndex((n) => n > 0);
      expect(last - first).toBeGreaterThanOrEqual(2);
      expect(
        perSecond.slice(first, last + 1).every((n) => n > 0),
        JSON.stringify(perSecond),
      ).toBe(true);

      // The same scenario unsharded: its arrivals are the plan's, so a run on a manual clock has them.
      const whole = join(dir, 'together', 'whole');
      const io = captureIo({});
      const code = await runCliOnClock(['run', file, '--out', whole, '--quiet'], io);
      expect(code, io.stderr.join('\n')).toBe(0);
      const us = await summaryOf(whole);
      expect(arrivals(us)).toBe(90);
      expect(arrivals(ms)).toBe(arrivals(us));
    },
  );
});

interface InProcessExit {
  code: number;
  stderr: string;
  /** The shared clock's reading when the shard's command returned. */
  endedAt: number;
}

describe('shards at a barrier, in-process on one manual clock', () => {
  let clock: ManualClock;
  let emulator: EmulatorHandle;
  let front: Front;

  beforeEach(async () => {
    clock = cliClock();
    emulator = await startEmulator({ port: 0, ...EMULATOR, clock });
    front = await startFront(emulator.url);
  });

  afterEach(async () => {
    await front.close();
    await emulator.close();
  });

  /** Shard i of 3 as the CLI runs it, on the shared clock; `io` to interrupt it. */
  function shard(
    name: string,
    file: string,
    i: number,
    extra: readonly string[] = [],
  ): { io: CapturedIo; exit: Promise<InProcessExit> } {
    const io = captureIo({});
    const argv = [...shardArgs(name, file, i, front.url, emulator.apiKey), ...extra];
    const exit = runCli(argv, { ...io, clock, generatorProbe: quietLoop }).then((code): InProcessExit => ({
      code,
      stderr: io.stderr.join('\n'),
      endedAt: clock.now(),
    }));
    return { io, exit };
  }

  /** Settles `work` (the shards' commands, a stand-in shard), moving the clock whenever all of it waits. */
  function drive<T>(work: Promise<T>): Promise<T> {
    return new ClockDriver(clock).run(work);
  }

  const dirsOf = (name: string): string[] => [1, 2, 3].map((i) => join(dir, name, `shard-${String(i)}`));

  it('Ctrl-C to one shard stops the others within a few seconds, and each of them and the merge names it', async () => {
    const file = await scenarioFile('ctrl-c', scenario(20));
    const shards = [1, 2, 3].map((i) => shard('ctrl-c', file, i));
    // Ctrl-C to shard 2 once the load runs on it: its 11th request.
    let sentAt = -1;
    let fromTwo = 0;
    front.onRequest = (from) => {
      if (from !== '127.0.0.3' || ++fromTwo !== 11) return;
      sentAt = clock.now();
      // As main.ts aborts on a first SIGINT.
      shards[1]?.io.controller.abort(new Error('interrupted'));
    };
    const exits = await drive(Promise.all(shards.map((s) => s.exit)));
    expect(sentAt).toBeGreaterThan(0);
    for (const i of [0, 2]) {
      const e = exits[i];
      if (!e) throw new Error('no exit');
      expect((e.endedAt - sentAt) / 1000, e.stderr).toBeLessThan(8);
      expect(e.stderr).toContain('stopped by shard 2/3: interrupted (Ctrl-C or SIGTERM)');
    }
    const dirs = dirsOf('ctrl-c');
    const summaries = await Promise.all(dirs.map(summaryOf));
    for (const s of [summaries[0], summaries[2]]) {
      expect(s?.run.stoppedBy).toMatchObject({ shard: '2/3', reason: 'interrupted (Ctrl-C or SIGTERM)' });
      expect(s?.run.end).toBe('interrupted');
      expect(s?.run.durationMs).toBeLessThan(15_000);
    }
    expect(summaries[1]?.run.stoppedBy).toBeUndefined();
    const merged = join(dir, 'ctrl-c', 'merged');
    const m = await merge(dirs, merged);
    const ms = await summaryOf(merged);
    expect(ms.run.stoppedBy?.shard).toBe('2/3');
    expect(ms.verdict.status).toBe('interrupted');
    expect(ms.verdict.reasons.join('\n')).toContain('shard 2/3 stopped the run');
    expect(m.stderr).toContain('shard 2/3 stopped the run: interrupted (Ctrl-C or SIGTERM)');
  });

  it('a shard whose own share fails an abortOnFail threshold stops the others, and the merged verdict names it', async () => {
    // Only shard 2's submits fail: the threshold can only fail on its share.
    front.failSubmitsFrom = '127.0.0.3';
    const file = await scenarioFile(
      'abort',
      scenario(20, 'thresholds:\n  - { threshold: "rate(5xx) < 10%", window: 1s, abortOnFail: true }\n'),
    );
    const exits = await drive(Promise.all([1, 2, 3].map((i) => shard('abort', file, i).exit)));
    const dirs = dirsOf('abort');
    const summaries = await Promise.all(dirs.map(summaryOf));
    expect(summaries[1]?.run.end, exits[1]?.stderr).toBe('aborted');
    const stoppedAt = Date.parse(summaries[0]?.run.stoppedBy?.at ?? '');
    for (const i of [0, 2]) {
      const s = summaries[i];
      expect(s?.run.stoppedBy?.shard, exits[i]?.stderr).toBe('2/3');
      expect(s?.run.stoppedBy?.reason).toContain('aborted: rate(5xx) < 10% over 1s');
      expect(exits[i]?.stderr).toContain('stopped by shard 2/3: aborted: rate(5xx) < 10%');
      // They ended within a few seconds of the notice (drain and graceful stop included).
      const ended = (s?.run.startMs ?? 0) + (s?.run.durationMs ?? 0);
      expect((ended - stoppedAt) / 1000).toBeLessThan(5);
    }
    const merged = join(dir, 'abort', 'merged');
    await merge(dirs, merged);
    const ms = await summaryOf(merged);
    expect(ms.run.end).toBe('aborted');
    expect(ms.verdict.status).toBe('failed');
    expect(ms.verdict.reasons.join('\n')).toContain('shard 2/3 stopped the run');
  });

  it('a shard killed hard (no stop notice, its heartbeat silent) stops the others once the heartbeat is 10 s silent, and each of them and the merge names it', async () => {
    const file = await scenarioFile('killed', scenario(40));
    const folder = join(dir, 'killed', 'barrier');
    const shards = [1, 3].map((i) => shard('killed', file, i));
    // Shard 2 as a process killed hard leaves it: it came to the barrier, beat while it ran, and
    // from its kill on wrote nothing (no stop notice, no last beat saying it ended, no summary).
    let killedAt = -1;
    const killed = async (): Promise<void> => {
      const two = { index: 2, count: 3 };
      const meeting = await new ShardBarrier({
        folder,
        shard: two,
        clock,
        timeoutMs: 60_000,
        who: 'test',
      }).meet(new AbortController().signal);
      expect(meeting.kind).toBe('start');
      // Beats at its start and each second after; killed right after its third, 2 s into the load.
      for (let beat = 1; beat <= 3; beat++) {
        if (beat > 1) await clock.sleep(BEAT_MS);
        await writeAtomic(folder, heartbeatFile(2, 3), { shard: '2/3', beat, atMs: clock.epochNow() });
      }
      killedAt = clock.now();
    };
    const [exits] = await drive(Promise.all([Promise.all(shards.map((s) => s.exit)), killed()]));
    const dirs = dirsOf('killed');
    const notices = [];
    for (const [k, i] of [0, 2].entries()) {
      const e = exits[k];
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
    const m = await merge(dirs, merged);
    const ms = await summaryOf(merged);
    expect(ms.run.missingShards).toEqual(['2/3']);
    expect(ms.run.stoppedBy?.shard).toBe('2/3');
    expect(ms.verdict.status).toBe('interrupted');
    const reasons = ms.verdict.reasons.join('\n');
    expect(reasons).toContain('shard 2/3 left no summary');
    expect(reasons).toContain('shard 2/3 stopped the run');
    expect(m.stderr).toContain('shard 2/3 stopped the run: stopped answering (no heartbeat for 10s)');
  });

  it('shards that end normally, a second and then 12 s apart, stop no one: each said it ended', async () => {
    const files = await Promise.all(
      [3, 4, 16].map((sec) => scenarioFile(`ends-${String(sec)}s`, scenario(sec))),
    );
    const exits = await drive(Promise.all([1, 2, 3].map((i) => shard('ends', files[i - 1] ?? '', i).exit)));
    for (const e of exits) {
      expect(e.code, e.stderr).toBe(0);
      expect(e.stderr).not.toContain('stopped');
    }
    const summaries = await Promise.all(dirsOf('ends').map(summaryOf));
    for (const s of summaries) {
      expect(s.run.end).toBe('completed');
      expect(s.run.stoppedBy).toBeUndefined();
    }
    // Shard 3 ran on well past the bound after shard 1's end.
    expect(summaries[2]?.run.durationMs).toBeGreaterThanOrEqual(15_000);
  });

  it('when one shard never comes, the others give up at --barrier-timeout with exit 3 and send nothing', async () => {
    const file = await scenarioFile('timeout', scenario(3));
    // Shard 1 never comes (it alone would run the preflight, so the others send nothing at all).
    const started = clock.now();
    const exits = await drive(
      Promise.all([2, 3].map((i) => shard('timeout', file, i, ['--barrier-timeout', '2s']).exit)),
    );
    for (const e of exits) {
      expect(e.code, e.stderr).toBe(3);
      expect(e.stderr).toMatch(/barrier timeout: shards? 1\/3.* did not come to .* within 2s/);
      expect(e.stderr).toContain('nothing was sent');
      // At the timeout, not before it, and not long after (a poll of the folder).
      expect(e.endedAt - started).toBeGreaterThanOrEqual(2000);
      expect(e.endedAt - started).toBeLessThan(2500);
    }
    expect([...front.bySource.values()]).toEqual([]);
  });
});
