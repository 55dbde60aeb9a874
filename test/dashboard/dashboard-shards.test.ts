import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { startEmulator } from '../../src/emulator/index.js';
import { reportView } from '../../src/report/html-reporter.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import type { Summary } from '../../src/report/summary.js';
import { captureIo, type CapturedIo } from '../helpers/cli-io.js';
import { cliClock } from '../helpers/cli-on-clock.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { quietLoop } from '../helpers/manual-target.js';
import { EventReader } from './frame-events.js';

const SCENARIO = join(import.meta.dirname, '../../scenarios/steady-load.yaml');

describe('jobstorm dashboard <barrier folder> (issue 51)', () => {
  it('shows the shards merged while they run, and at the end their merged report', async () => {
    const clock = cliClock();
    // One endpoint for both shards, as a run's shards share one: else they are not one run's.
    const emulator = await startEmulator({ port: 0, clock, workersMin: 10, workersMax: 10, coldStartMs: 0 });
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-dash-shards-'));
    const barrier = join(dir, 'barrier');
    const watcher = captureIo();
    const inProcess = (io: CapturedIo) => ({ ...io, clock, generatorProbe: quietLoop });
    const dashboard = runCli(['dashboard', barrier], inProcess(watcher));
    let stream: EventReader | undefined;
    const look = (): void => {
      clock.schedule(500, look);
      const url = /dashboard: (http\S+)/.exec(watcher.stderr.join('\n'))?.[1];
      if (url && !stream) stream = new EventReader(url);
    };
    clock.schedule(0, look);
    const shard = (i: number): Promise<number> =>
      runCli(
        [
          'run',
          SCENARIO,
          '--target',
          emulator.url,
          '--api-key',
          emulator.apiKey,
          '--shard',
          `${String(i)}/2`,
          '--barrier',
          barrier,
          '--duration',
          '8s',
          '--quiet',
          '--out',
          join(dir, `shard-${String(i)}`),
        ],
        inProcess(captureIo()),
      );
    const shards = Promise.all([shard(1), shard(2)]).then((codes) => {
      // The watcher reads the folder each second: a few more, then Ctrl-C.
      clock.schedule(3000, () => {
        stream?.close();
        watcher.controller.abort();
      });
      return codes;
    });
    const [codes, watched] = await new ClockDriver(clock)
      .run(Promise.all([shards, dashboard]))
      .finally(() => emulator.close());
    expect(codes).toEqual([0, 0]);
    expect(watched).toBe(0);
    expect(watcher.stderr.join('\n')).toContain('all 2 shards ended');

    const frames = stream?.frames ?? [];
    const running = frames.filter((f) => f.state === 'running');
    expect(running.length).toBeGreaterThanOrEqual(4);
    // Both shards merged, live: the run line names them.
    expect(running.some((f) => f.body.includes('merged shards 1/2, 2/2'))).toBe(true);
    const last = frames.at(-1);
    expect(last?.state).toBe('done');
    const summaries = [1, 2].map(
      (i) => JSON.parse(readFileSync(join(dir, `shard-${String(i)}`, 'summary.json'), 'utf8')) as Summary,
    );
    expect(last?.body).toBe(reportView(mergeSummaries(summaries)).body);
  }, 180_000);
});
