import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { runClock } from '../../src/runner/run-clock.js';
import { ClockDriver } from './clock-driver.js';
import { manualTarget, MANUAL_EPOCH_MS } from './manual-target.js';

describe('ManualClock readings a driver needs (issue 46)', () => {
  it('nextDue is the earliest timer still set; epochNow is now() past the epoch of its zero', () => {
    const clock = new ManualClock(0, MANUAL_EPOCH_MS);
    expect(clock.nextDue()).toBeUndefined();
    const cancel = clock.schedule(50, () => undefined);
    clock.schedule(120, () => undefined);
    expect(clock.nextDue()).toBe(50);
    cancel();
    expect(clock.nextDue()).toBe(120);
    clock.advance(200);
    expect(clock.nextDue()).toBeUndefined();
    expect(clock.epochNow()).toBe(MANUAL_EPOCH_MS + 200);
  });

  it('a hold moves time with nothing running: a timer due meanwhile fires late, at the time the hold left', () => {
    const clock = new ManualClock();
    const fired: number[] = [];
    clock.schedule(100, () => fired.push(clock.now()));
    clock.schedule(500, () => fired.push(clock.now()));
    clock.hold(300);
    expect(fired).toEqual([]);
    expect(clock.nextDue()).toBe(100);
    clock.advance(0);
    expect(fired).toEqual([300]);
    clock.advance(200);
    expect(fired).toEqual([300, 500]);
  });

  it('counts work declared under way until it settles, fulfilled or rejected', async () => {
    const clock = new ManualClock();
    let finish = (): void => undefined;
    const sending = new Promise<void>((resolve) => (finish = resolve));
    clock.underWay(sending);
    clock.underWay(Promise.reject(new Error('refused')));
    expect(clock.workUnderWay).toBe(2);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(clock.workUnderWay).toBe(1);
    finish();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(clock.workUnderWay).toBe(0);
  });

  it("a run's clock reads 0 at the epoch instant it starts at, on its owner's clock", () => {
    const base = new ManualClock(1000, MANUAL_EPOCH_MS);
    const run = runClock(base);
    // Time 0 set 5 ms ahead (threaded-run's start margin), then 5 ms passed.
    run.start(base.epochNow() + 5);
    expect(run.now()).toBe(-5);
    base.advance(5);
    expect(run.now()).toBe(0);
    expect(run.epochNow()).toBe(MANUAL_EPOCH_MS + 1005);
  });
});

/** Resolves after `turns` turns of the event loop, with nothing else under way. */
const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

describe('ClockDriver', () => {
  it('does not take a request whose body is still coming for one parked at the server', async () => {
    const clock = new ManualClock();
    const server = createServer((req: IncomingMessage, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    let firedBeforeAnswer = false;
    let answered = false;
    clock.schedule(1000, () => {
      if (!answered) firedBeforeAnswer = true;
    });
    try {
      // Sent once the driver listens, as a run's requests are.
      const exchange = (): Promise<void> =>
        new Promise<void>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/' }, (res) => {
            res.resume();
            res.on('end', () => {
              answered = true;
              resolve();
            });
          });
          req.on('error', reject);
          // The headers reach the server first; the body comes a few quiet turns later, as a loaded
          // sender's does.
          req.flushHeaders();
          void turns(8).then(() => req.end('body'));
        });
      await new ClockDriver(clock).run(turns(1).then(exchange));
      expect(answered).toBe(true);
      expect(firedBeforeAnswer).toBe(false);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('moves the clock while a runsync waits at the emulator: a 5 s job done in less real time than that', async () => {
    const t = await manualTarget({ workersMin: 1, workersMax: 1 });
    try {
      const began = performance.now();
      const res = await t.driver.run(
        fetch(`${t.emulator.url}/runsync?wait=60000`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.emulator.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ input: { sleep_ms: 5000 } }),
        }).then((r) => r.json() as Promise<{ status: string; executionTime?: number }>),
      );
      expect(res.status).toBe('COMPLETED');
      expect(res.executionTime).toBe(5000);
      expect(t.clock.now()).toBeGreaterThanOrEqual(5000);
      // Real time: loopback round trips only (generous for a loaded machine).
      expect(performance.now() - began).toBeLessThan(5000);
    } finally {
      await t.emulator.close();
    }
  });

  it('holds the clock while work declared under way is unsettled, past the quiet spell that moves it anyway', async () => {
    const clock = new ManualClock();
    let workDone = false;
    let doneWhenFired: boolean | undefined;
    clock.schedule(100, () => (doneWhenFired = workDone));
    // Off the clock and off the wire (a live export's encoding, say): 80 quiet turns, past the 50
    // after which a driver moves time even with requests open.
    const work = turns(80).then(() => {
      workDone = true;
    });
    clock.underWay(work);
    await new ClockDriver(clock).run(work.then(() => clock.sleep(200)));
    expect(doneWhenFired).toBe(true);
    expect(clock.now()).toBe(200);
  });

  it('gives up with what it saw when the work waits on something off the clock', async () => {
    const driver = new ClockDriver(new ManualClock(), { maxRealMs: 100 });
    const never = new Promise<void>(() => undefined);
    await expect(driver.run(never)).rejects.toThrow(
      /ClockDriver gave up: it ran past 100 ms of real time and the work did not finish \(clock at 0 ms, next timer none/,
    );
  });

  it('gives up after its bound on steps when the work never ends', async () => {
    const clock = new ManualClock();
    const tick = (): void => void clock.schedule(10, tick);
    tick();
    const driver = new ClockDriver(clock, { maxSteps: 20 });
    await expect(driver.run(new Promise<void>(() => undefined))).rejects.toThrow(/moved the clock 20 times/);
    expect(clock.now()).toBe(200);
  });
});

describe('ClockDriver and a node:http client reading its answer', () => {
  it('does not move the clock until the body is read: node:http says "finish" at the headers', async () => {
    const { createServer, get } = await import('node:http');
    const server = createServer((_req, res) => res.end('the whole answer'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const clock = new ManualClock();
    const driver = new ClockDriver(clock);
    let bodyEnded = false;
    let endedWhenTimerFired: boolean | undefined;
    clock.schedule(100, () => (endedWhenTimerFired = bodyEnded));
    try {
      const port = (server.address() as { port: number }).port;
      await driver.run(
        new Promise<void>((resolve, reject) => {
          get(`http://127.0.0.1:${String(port)}/`, (res) => {
            // A consumer that reads its answer a few turns later (an exporter's promise chain).
            let turns = 10;
            const later = (): void => {
              if (--turns > 0) {
                setImmediate(later);
                return;
              }
              res.resume();
              res.once('end', () => {
                bodyEnded = true;
                // The run goes on past the timer: the driver has to move the clock for it to end.
                void clock.sleep(200).then(resolve);
              });
            };
            setImmediate(later);
          }).once('error', reject);
        }),
      );
    } finally {
      server.close();
    }
    expect(endedWhenTimerFired).toBe(true);
  });
});
