import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { EmulatorCore } from '../../src/emulator/emulator-core.js';
import type { Endpoint } from '../../src/emulator/endpoint.js';
import type { WorkerLauncher } from '../../src/emulator/external/external-pool.js';
import type { Job } from '../../src/emulator/job.js';
import { resolveOptions } from '../../src/emulator/options.js';

/*
 * The real-worker pool on a manual clock, without HTTP or processes: a launcher that only records
 * what it was asked, and workers played by calls to take/ping/result.
 */

class FakeLauncher implements WorkerLauncher {
  started: string[] = [];
  stopped: string[] = [];
  start(id: string): void {
    this.started.push(id);
  }
  stop(id: string): void {
    this.stopped.push(id);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  processes(): { workerId: string; pid: number | undefined; log: string }[] {
    return this.started.map((workerId) => ({ workerId, pid: undefined, log: '' }));
  }
}

function setUp(
  options: Record<string, unknown> = {},
  launch = true,
): { clock: ManualClock; core: EmulatorCore; ep: Endpoint; launcher: FakeLauncher } {
  const clock = new ManualClock();
  const config = resolveOptions({
    clock,
    externalWorkers: true,
    workersMin: 1,
    workersMax: 3,
    idleTimeout: 2,
    workerHoldMs: 1000,
    workerDeadAfterMs: 5000,
    ...options,
  });
  const core = new EmulatorCore(clock, config, () => Promise.resolve(200));
  const ep = core.endpoints.get('jobstorm') as Endpoint;
  const launcher = new FakeLauncher();
  if (launch) ep.external.attach(launcher);
  return { clock, core, ep, launcher };
}

function submit(ep: Endpoint, n: number): Job[] {
  return Array.from({ length: n }, (_, i) => ep.submit({ input: { i } }, false));
}

/** A take that records what it was answered. */
function take(ep: Endpoint, worker: string, max = 1): { jobs: Job[] | undefined } {
  const got: { jobs: Job[] | undefined } = { jobs: undefined };
  ep.external.take(worker, max, (jobs) => (got.jobs = jobs));
  return got;
}

describe('real workers: the autoscaler', () => {
  it('starts workersMin at once, more on queue depth up to workersMax, and stops idle ones down to workersMin', () => {
    const { clock, ep, launcher } = setUp();
    expect(launcher.started).toEqual(['worker-1']);
    expect(ep.health()).toMatchObject({ workers: { initializing: 1, idle: 0, running: 0 } });
    const jobs = submit(ep, 5);
    expect(launcher.started).toEqual(['worker-1', 'worker-2', 'worker-3']);
    for (const id of launcher.started) expect(take(ep, id).jobs).toHaveLength(1);
    expect(ep.health()).toMatchObject({
      workers: { initializing: 0, idle: 0, running: 3 },
      jobs: { inProgress: 3, inQueue: 2 },
    });
    for (const job of jobs.slice(0, 3))
      expect(ep.external.result(job.externalWorker ?? '', job, job.id, { output: 'ok' }).status).toBe(200);
    // Two jobs left for three workers: two takes get one each, the third is held.
    const again = launcher.started.map((id) => take(ep, id));
    expect(again.map((t) => t.jobs?.length)).toEqual([1, 1, undefined]);
    const rest = jobs.slice(3);
    for (const job of rest) ep.external.result(job.externalWorker ?? '', job, job.id, { output: 'ok' });
    expect(ep.health()).toMatchObject({ jobs: { completed: 5 }, workers: { running: 0 } });
    // Idle past idleTimeout (2 s): two are stopped, workersMin (1) stays.
    for (let t = 0; t < 3000; t += 500) {
      clock.advance(500);
      for (const id of launcher.started) ep.external.ping(id);
    }
    expect(launcher.stopped).toHaveLength(2);
    expect(ep.health()).toMatchObject({ workers: { idle: 1 } });
    // A stopped worker that still speaks while winding down is given nothing and not counted.
    const stopped = launcher.stopped[0] ?? '';
    submit(ep, 1);
    const late = take(ep, stopped);
    expect(late.jobs).toBeUndefined();
    for (const id of launcher.stopped) ep.external.exited(id, 0);
    expect(ep.health()).toMatchObject({ workers: { idle: 1, running: 0 } });
    const survivor = launcher.started.find((id) => !launcher.stopped.includes(id)) ?? '';
    expect(take(ep, survivor).jobs).toHaveLength(1);
    clock.advance(1000);
    expect(late.jobs).toEqual([]);
  });

  it('stops launching when workers keep exiting before their first request', () => {
    const { ep, launcher } = setUp({ workersMin: 1, workersMax: 1 });
    submit(ep, 1);
    for (let i = 0; i < 10; i++) {
      const last = launcher.started[launcher.started.length - 1] ?? '';
      ep.external.exited(last, 127);
    }
    expect(launcher.started).toHaveLength(5);
    expect(ep.external.snapshot()).toMatchObject({ launchStopped: true });
  });

  it('resolves whenWarm once workersMin have made their first request', async () => {
    const { ep, launcher } = setUp({ workersMin: 2, workersMax: 2 });
    let warm = false;
    const done = ep.external.whenWarm(60_000).then(() => (warm = true));
    ep.external.ping(launcher.started[0] ?? '');
    await Promise.resolve();
    expect(warm).toBe(false);
    ep.external.ping(launcher.started[1] ?? '');
    await done;
    expect(warm).toBe(true);
  });
});

describe('real workers: silence and death', () => {
  it('a worker silent past deadAfterMs is dead; its job FAILED, a later result is late, and it is not counted', () => {
    const { clock, ep } = setUp({ workersMin: 0 }, false);
    const [job] = submit(ep, 1);
    expect(take(ep, 'me').jobs).toEqual([job]);
    clock.advance(4000);
    ep.external.ping('me');
    clock.advance(4000);
    expect(job?.status).toBe('IN_PROGRESS');
    clock.advance(2000);
    expect(job?.status).toBe('FAILED');
    expect(job?.error).toMatch(/worker me was lost/);
    expect(ep.health()).toMatchObject({
      workers: { idle: 0, running: 0 },
      jobs: { failed: 1, inProgress: 0 },
    });
    const answer = ep.external.result('me', job, job?.id ?? '', { output: 'too late' });
    expect(answer.status).toBe(409);
    expect(job?.status).toBe('FAILED');
    expect(ep.external.snapshot()).toMatchObject({
      lateResults: 1,
      workers: [{ id: 'me', state: 'dead', lostJobs: 1, lateResults: 1 }],
    });
  });

  it('an open long-poll keeps a worker alive however long it is held', () => {
    const { clock, ep } = setUp({ workersMin: 0, workerHoldMs: 60_000 }, false);
    const stop = { ids: undefined as string[] | undefined };
    ep.external.stopPoll('held', (ids) => (stop.ids = ids));
    clock.advance(30_000);
    expect(ep.health()).toMatchObject({ workers: { idle: 1 } });
    clock.advance(30_000);
    expect(stop.ids).toEqual([]);
  });

  it('a refresh_worker result (stopPod) completes the job and gives the worker no more jobs', () => {
    const { ep } = setUp({ workersMin: 0 }, false);
    const [a] = submit(ep, 2);
    expect(take(ep, 'once').jobs).toEqual([a]);
    expect(ep.external.result('once', a, a?.id ?? '', { output: 1, stopPod: true }).status).toBe(200);
    expect(a?.status).toBe('COMPLETED');
    expect(take(ep, 'once').jobs).toBeUndefined();
    expect(take(ep, 'other').jobs).toHaveLength(1);
  });
});
