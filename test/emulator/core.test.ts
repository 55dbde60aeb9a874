import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts/queue/limits.js';
import { ConfigError } from '../../src/core/config-error.js';
import { ManualClock } from '../../src/core/manual-clock.js';
import { EmulatorCore } from '../../src/emulator/emulator-core.js';
import { ExpiryQueue } from '../../src/emulator/expiry-queue.js';
import { Job } from '../../src/emulator/job.js';
import { resolveOptions } from '../../src/emulator/options.js';
import { SeededRandom } from '../../src/core/seeded-random.js';
import { SlidingWindow } from '../../src/emulator/rate-limiter.js';

describe('options', () => {
  it('reports every problem at once', () => {
    let caught: unknown;
    try {
      resolveOptions({
        port: 70_000,
        workersMin: 5,
        workersMax: 2,
        profile: 'nope',
        faults: ['nope', 'server-errors=3'],
        streamShape: 'xml' as 'array',
      });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const where = (caught as ConfigError).issues.map((i) => i.where);
    expect(where).toEqual(expect.arrayContaining(['port', 'workersMin', 'profile', 'faults', 'streamShape']));
    expect((caught as ConfigError).issues.filter((i) => i.where === 'faults')).toHaveLength(2);
  });

  it('defaults are sensible and profiles resolve by name or object', () => {
    const c = resolveOptions();
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      endpoints: ['jobstorm'],
      requestsPerWorker: 10,
      streamShape: 'envelope',
    });
    expect(c.profile.name).toBe('default');
    const custom = resolveOptions({
      profile: { duration: { kind: 'fixed', ms: 7 }, failureRate: 0.5 },
      faults: { 'no-429': true },
    });
    expect(custom.profile).toMatchObject({ duration: { kind: 'fixed', ms: 7 }, failureRate: 0.5 });
    expect(custom.faults).toEqual([['no-429', 1]]);
  });
});

describe('expiry queue', () => {
  it('expires jobs in deadline order, with deadlines moved around, on one timer', () => {
    const clock = new ManualClock();
    const expired: number[] = [];
    const q = new ExpiryQueue(
      clock,
      () => clock.now(),
      (job) => expired.push(job.expiresAt),
    );
    const rng = new SeededRandom(7);
    const jobs = Array.from(
      { length: 500 },
      (_, i) => new Job(String(i), {}, undefined, false, false, 1000, 0, 1 + Math.floor(rng.next() * 10_000)),
    );
    for (const j of jobs) q.update(j);
    for (const j of jobs.slice(0, 200)) {
      j.expiresAt = 1 + Math.floor(rng.next() * 10_000);
      q.update(j);
    }
    for (const j of jobs.slice(450)) q.remove(j);
    expect(clock.pending).toBe(1);
    clock.advance(10_001);
    expect(expired).toHaveLength(450);
    expect([...expired].sort((a, b) => a - b)).toEqual(expired);
    expect(q.size).toBe(0);
  });
});

describe('sliding window', () => {
  it('admits `limit` per window and says exactly when the next is admitted', () => {
    const w = new SlidingWindow();
    for (let i = 0; i < 1000; i++) expect(w.admit(i, 1000)).toBe(0);
    expect(w.admit(5000, 1000)).toBe(5000);
    expect(w.admit(9999, 1000)).toBe(1);
    expect(w.admit(10_000, 1000)).toBe(0);
    expect(w.admit(10_000, 1000)).toBe(1);
  });
});

describe('retention frees jobs', () => {
  it('20k finished jobs leave the maps and the heap once retention passes', () => {
    const clock = new ManualClock();
    const core = new EmulatorCore(clock, resolveOptions({ workersMax: 50, coldStartMs: 0 }), () =>
      Promise.resolve(200),
    );
    const ep = core.endpoints.get('jobstorm');
    if (!ep) throw new Error('no endpoint');
    for (let i = 0; i < 20_000; i++) ep.submit({ input: { i, sleep_ms: 0 } }, i % 2 === 0);
    clock.advance(1);
    expect(ep.jobs.size).toBe(20_000);
    expect((ep.health() as { jobs: { completed: number } }).jobs.completed).toBe(20_000);
    clock.advance(LIMITS.retentionRunsync);
    expect(ep.jobs.size).toBe(10_000);
    clock.advance(LIMITS.retentionRun);
    expect(ep.jobs.size).toBe(0);
    expect(clock.pending).toBe(0);
    void core.close();
  });
});

describe('job ids', () => {
  it('are UUID v4 with -u1, sync- prefixed for /runsync, and unique', async () => {
    const { newJobId } = await import('../../src/emulator/job-id.js');
    const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';
    expect(newJobId(false)).toMatch(new RegExp(`^${uuid}-u1$`));
    expect(newJobId(true)).toMatch(new RegExp(`^sync-${uuid}-u1$`));
    const seen = new Set(Array.from({ length: 20_000 }, () => newJobId(false)));
    expect(seen.size).toBe(20_000);
  });
});
