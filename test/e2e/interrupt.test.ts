import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/exit-code.js';
import type { ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import { cliClock, runCliOnClock } from '../helpers/cli-on-clock.js';
import { captureIo } from '../helpers/cli-io.js';
import { closedPort } from '../runner/helpers.js';
import { flowScenario, flowServer, type FlowServer } from './flow-server.js';
import { expectReports, readRecords, readSummary, root, tempDir } from './helpers.js';

/*
 * Issue 4: SIGINT stops arrivals, drains what is in flight and still hands every record to the
 * reporter (exit 130); a target that refuses connections is exit 3 after the run, with a message
 * and reports, not a stack trace. Both through the built bin, as a user runs it (real processes
 * and signals, so real time; the three at once, each with its own server), and in-process, where
 * the run and the server it targets share a manual clock (issue 46).
 */

const bin = join(root, 'dist/cli/main.js');

beforeAll(() => {
  expect(existsSync(bin)).toBe(true);
});

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBin(args: string[], onStart?: (child: ReturnType<typeof spawn>) => void): Promise<Exit> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, JOBSTORM_API_KEY: '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  onStart?.(child);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A flow server that sends `signal` to the bin once `after` requests came to it. */
async function signalAfter(
  after: number,
  signal: NodeJS.Signals,
): Promise<{ s: FlowServer; onStart: (child: ReturnType<typeof spawn>) => void; sentAfter: () => number }> {
  let child: ReturnType<typeof spawn> | undefined;
  let sentAfter = 0;
  const s = await flowServer(150, {
    onRequest: (n) => {
      if (n !== after) return;
      sentAfter = n;
      child?.kill(signal);
    },
  });
  return { s, onStart: (c) => (child = c), sentAfter: () => sentAfter };
}

const STACK = /^\s+at .+\(.+:\d+:\d+\)$|^\s+at file:/m;

/** Every request the server got has its record, and none was cut off (the drain let them finish). */
function expectCompleteRecords(records: JobstormRecord[], received: readonly string[]): void {
  expect(records[0]?.type).toBe('run');
  const ex = records.filter((r): r is ExchangeRecord => r.type === 'exchange');
  const recorded = new Map<string, number>();
  for (const r of ex) recorded.set(`${r.method} ${r.path}`, (recorded.get(`${r.method} ${r.path}`) ?? 0) + 1);
  const missing = new Map<string, number>();
  for (const key of received) {
    const left = recorded.get(key) ?? 0;
    if (left > 0) recorded.set(key, left - 1);
    else missing.set(key, (missing.get(key) ?? 0) + 1);
  }
  expect([...missing.entries()]).toEqual([]);
  expect(ex.length).toBe(received.length);
  expect(ex.filter((r) => r.status === undefined)).toEqual([]);
}

describe.concurrent('through the built bin', () => {
  it('SIGINT mid-run: the bin exits 130 with reports and a complete, parseable records file', async () => {
    // Interrupted as its 100th request comes to the server, which holds each answer 150 ms.
    const { s, onStart, sentAfter } = await signalAfter(100, 'SIGINT');
    try {
      const dir = await tempDir('sigint');
      const file = join(dir, 'load.yaml');
      await writeFile(file, flowScenario('interrupted', 30, 40));
      const out = join(dir, 'out');
      const exit = await runBin(
        ['run', file, '--target', s.target, '--api-key', 'k', '--record', '--out', out],
        onStart,
      );
      expect(exit.code, exit.stderr).toBe(ExitCode.Interrupted);
      // Requests the server had when the interrupt was sent (0: never sent).
      expect(sentAfter()).toBeGreaterThan(0);
      expect(exit.stderr).toMatch(/interrupted/);
      expect(exit.stderr + exit.stdout).not.toMatch(STACK);
      expectReports(out, true);
      const records = await readRecords(out);
      expectCompleteRecords(records, s.received);
      const summary = await readSummary(out);
      // Drain is bounded (a few seconds): the run, by its own measure, ended far short of the 30 s scenario.
      expect(summary.run.durationMs).toBeLessThan(20_000);
      const runs = records.filter((r) => r.type === 'exchange' && r.op === 'run').length;
      expect(summary.operations.run?.requests).toBe(runs);
    } finally {
      await s.close();
    }
  }, 60_000);

  it('SIGTERM (a CI timeout, a container stop) is an interrupt too: exit 130 with the reports', async () => {
    const { s, onStart, sentAfter } = await signalAfter(60, 'SIGTERM');
    try {
      const dir = await tempDir('sigterm');
      const file = join(dir, 'load.yaml');
      await writeFile(file, flowScenario('terminated', 30, 40));
      const out = join(dir, 'out');
      const exit = await runBin(
        ['run', file, '--target', s.target, '--api-key', 'k', '--record', '--out', out],
        onStart,
      );
      expect(exit.code, exit.stderr).toBe(ExitCode.Interrupted);
      expect(sentAfter()).toBe(60);
      expect(exit.stderr).toContain('terminated (SIGTERM); finishing up');
      expectReports(out, true);
      expectCompleteRecords(await readRecords(out), s.received);
      expect((await readSummary(out)).run.end).toBe('interrupted');
    } finally {
      await s.close();
    }
  }, 60_000);

  it('a target that refuses connections is exit 3 after the run with a clear message, reports written, no stack trace', async () => {
    const port = await closedPort();
    const out = join(await tempDir('refused'), 'out');
    const exit = await runBin([
      'run',
      join(root, 'scenarios/smoke.yaml'),
      '--target',
      `http://127.0.0.1:${String(port)}/v2/x`,
      '--api-key',
      'k',
      '--duration',
      '1s',
      '--out',
      out,
    ]);
    expect(exit.code, exit.stderr).toBe(ExitCode.Aborted);
    expect(exit.stderr).toMatch(/could not be reached/);
    expect(exit.stderr).not.toMatch(/internal error/);
    expect(exit.stderr + exit.stdout).not.toMatch(STACK);
    expectReports(out, false);
    const summary = await readSummary(out);
    expect(summary.errors.refused).toBeGreaterThan(0);
  }, 30_000);
});

describe('in-process, on a manual clock', () => {
  let server: FlowServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('an abort of the interrupt signal mid-run does what SIGINT does', async () => {
    // The server's 150 ms answers wait on the run's clock: requests are in flight at the abort,
    // sent as its 80th request comes.
    const clock = cliClock();
    const io = captureIo();
    server = await flowServer(150, {
      clock,
      onRequest: (n) => {
        if (n === 80) io.controller.abort(new Error('interrupted'));
      },
    });
    const s = server;
    const dir = await tempDir('abort');
    const file = join(dir, 'load.yaml');
    await writeFile(file, flowScenario('aborted', 30, 40));
    const out = join(dir, 'out');
    const code = await runCliOnClock(
      ['run', file, '--target', s.target, '--api-key', 'k', '--record', '--out', out, '--quiet'],
      io,
      { clock },
    );
    expect(code, io.stderr.join('\n')).toBe(ExitCode.Interrupted);
    expect(s.received.length).toBeGreaterThanOrEqual(80);
    expectReports(out, true);
    expectCompleteRecords(await readRecords(out), s.received);
    // Stopped, by the run's own measure, far short of the 30 s scenario.
    expect((await readSummary(out)).run.durationMs).toBeLessThan(20_000);
  });

  it('a target that refuses connections is exit 3, every exchange refused', async () => {
    const port = await closedPort();
    const out = join(await tempDir('refused'), 'out');
    const io = captureIo();
    const code = await runCliOnClock(
      [
        'run',
        join(root, 'scenarios/smoke.yaml'),
        '--target',
        `http://127.0.0.1:${String(port)}/v2/x`,
        '--api-key',
        'k',
        '--duration',
        '1s',
        '--out',
        out,
        '--quiet',
        '--record',
      ],
      io,
    );
    expect(code).toBe(ExitCode.Aborted);
    expect(io.stderr.join('\n')).toMatch(/could not be reached/);
    expectReports(out, true);
    const records = await readRecords(out);
    const ex = records.filter((r): r is ExchangeRecord => r.type === 'exchange');
    expect(ex.length).toBeGreaterThan(0);
    expect(ex.every((r) => r.error?.kind === 'refused' && r.error.code === 'ECONNREFUSED')).toBe(true);
  });
});
