import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import type { ExternalPoolSnapshot } from '../../src/emulator/index.js';
import { captureIo } from '../helpers/cli-io.js';
import { readRecords, readSummary, root, tempDir } from './helpers.js';

/*
 * `jobstorm run --worker` and a scenario's `worker:`: the emulator's autoscaler starts and stops
 * the standard-library Python worker; every check still applies, and no process is left behind.
 */

const WORKER = 'python3 test/worker/stdlib_worker.py';

/** Processes still in the process group `pgid` (every worker process is in its launcher's group). */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return members;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return (
      groupMembers(pid).length > 0 ||
      readFileSync(`/proc/${String(pid)}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z'
    );
  } catch {
    return groupMembers(pid).length > 0;
  }
}

/** Live (not zombie) processes whose environment holds `mark` and a worker id: this run's workers. */
function markedWorkers(mark: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (!env.includes(mark) || !env.some((e) => e.startsWith('RUNPOD_POD_ID='))) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') found.push(Number(entry));
    } catch {
      // gone while we looked, or not ours to read
    }
  }
  return found;
}

async function workersOf(out: string): Promise<ExternalPoolSnapshot> {
  return JSON.parse(await readFile(join(out, 'workers.json'), 'utf8')) as ExternalPoolSnapshot;
}

/** Total workers (idle + running + initializing) in each /health sample of the run, in order. */
async function healthSamples(out: string): Promise<number[]> {
  const records = await readRecords(out);
  return records.flatMap((r) => {
    if (r.type !== 'exchange' || r.op !== 'health' || r.status !== 200) return [];
    const w = (r.body as { workers?: Record<string, number> } | undefined)?.workers;
    return w === undefined ? [] : [(w.idle ?? 0) + (w.running ?? 0) + (w.initializing ?? 0)];
  });
}

describe('jobstorm run with your own worker', () => {
  it('smoke --worker: zero violations, the handler report, every worker process gone', async () => {
    const out = await tempDir('own-worker');
    const io = captureIo({ PATH: process.env.PATH });
    const code = await runCli(
      ['run', 'scenarios/smoke.yaml', '--worker', WORKER, '--out', out, '--record', '--quiet'],
      io,
    );
    const summary = await readSummary(out);
    // smoke also holds p99(run) < 500ms, which on this shared machine is a statement about its load,
    // not about the worker; what this proves is zero violations and every job done by the worker.
    // (The scaling test below, whose only threshold is violations, asserts exit 0.)
    expect([0, 1], io.stderr.join('\n')).toContain(code);
    expect(summary.violations, JSON.stringify(summary.violations).slice(0, 2000)).toEqual([]);
    expect(summary.thresholds.find((t) => t.expression === 'violations == 0')).toMatchObject({
      value: 0,
      ok: true,
    });
    expect(summary.thresholds.filter((t) => !t.ok).map((t) => t.expression)).toEqual(
      code === 0 ? [] : ['p99(run) < 500ms'],
    );
    expect(summary.jobs).toMatchObject({
      lost: 0,
      unfinished: 0,
      byState: { FAILED: 0, CANCELLED: 0, TIMED_OUT: 0 },
    });
    expect(summary.jobs.byState.COMPLETED).toBe(summary.jobs.submitted);
    const snap = await workersOf(out);
    expect(snap.processes.length).toBeGreaterThanOrEqual(1);
    expect(snap.lateResults).toBe(0);
    const taken = snap.workers.reduce((n, w) => n + w.taken, 0);
    expect(taken).toBeGreaterThan(0);
    expect(snap.workers.every((w) => w.lostJobs === 0)).toBe(true);
    expect(snap.workers.some((w) => w.coldStartMs > 0)).toBe(true);
    for (const p of snap.processes) {
      expect(p.pid).toBeTypeOf('number');
      expect(alive(p.pid ?? 0), `worker ${p.workerId} pid ${String(p.pid)} still running`).toBe(false);
      expect(await readFile(p.log, 'utf8')).toContain(`${p.workerId} started`);
    }
    const md = await readFile(join(out, 'summary.md'), 'utf8');
    expect(md).toContain('## Workers (your handler)');
    expect(md).toMatch(/\| worker-1 \| \d+ \|/);
    // Every report shows the handler's side, from summary.json alone (so `jobstorm report` does too).
    expect(summary.workers?.processes).toBe(snap.processes.length);
    expect(summary.workers?.rows.map((w) => w.taken)).toEqual(snap.workers.map((w) => w.taken));
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<h2>Workers (your handler)</h2>');
    expect(html).toMatch(/<td>worker-1<\/td><td>\d+<\/td>/);
    expect(existsSync(join(out, 'workers', 'worker-1.log'))).toBe(true);
  }, 90_000);

  it('a worker: section scales real processes up under a burst and down when idle', async () => {
    const out = await tempDir('own-worker-scaling');
    const io = captureIo({ PATH: process.env.PATH });
    const code = await runCli(
      ['run', 'test/e2e/fixtures/own-worker-scaling.yaml', '--out', out, '--record', '--quiet'],
      io,
    );
    const summary = await readSummary(out);
    expect(code, `${io.stderr.join('\n')}\n${JSON.stringify(summary.violations).slice(0, 2000)}`).toBe(0);
    expect(summary.thresholds).toEqual([
      expect.objectContaining({ expression: 'violations == 0', value: 0, ok: true }),
    ]);
    const samples = await healthSamples(out);
    const peak = Math.max(...samples);
    expect(peak).toBeGreaterThanOrEqual(2);
    const afterPeak = samples.slice(samples.indexOf(peak));
    expect(Math.min(...afterPeak), `samples ${samples.join(',')}`).toBeLessThan(peak);
    const snap = await workersOf(out);
    expect(snap.processes.length).toBeGreaterThanOrEqual(2);
    expect(snap.processes.length).toBeLessThanOrEqual(4 + 4);
    // Scaled down during the run: a worker stopped before the end exited on its own after SIGTERM.
    expect(snap.workers.some((w) => w.state === 'exited' && w.exitCode === 0)).toBe(true);
    for (const p of snap.processes) expect(alive(p.pid ?? 0), `pid ${String(p.pid)}`).toBe(false);
  }, 90_000);

  it('a worker command that dies at start-up: exit 2 naming the command, its exit code and its output', async () => {
    const out = await tempDir('own-worker-broken');
    const io = captureIo({ PATH: process.env.PATH });
    const command = `python3 -c 'import sys; print("no handler here"); sys.exit(3)'`;
    const code = await runCli(
      ['run', 'scenarios/smoke.yaml', '--worker', command, '--out', out, '--quiet'],
      io,
    );
    expect(code).toBe(2);
    const text = io.stderr.join('\n');
    expect(text).toContain('worker.command');
    expect(text).toContain('exited (code 3) before its first request');
    expect(text).toContain('no handler here');
  }, 60_000);

  it('--worker with --target, or without a command, is refused before anything starts', async () => {
    const io = captureIo({ PATH: process.env.PATH });
    const code = await runCli(
      [
        'run',
        'scenarios/smoke.yaml',
        '--worker',
        WORKER,
        '--target',
        'http://127.0.0.1:9/v2/x',
        '--api-key',
        'k',
      ],
      io,
    );
    expect(code).toBe(2);
    expect(io.stderr.join('\n')).toContain('--worker: your worker runs behind the embedded emulator');
    const empty = captureIo({});
    expect(await runCli(['run', 'scenarios/smoke.yaml', '--worker', ' '], empty)).toBe(2);
    expect(empty.stderr.join('\n')).toContain('--worker: expected a command');
  });

  it('capacity --worker searches the rate your worker sustains, with its processes scaled by the emulator', async () => {
    const out = await tempDir('own-worker-capacity');
    const io = captureIo({ PATH: process.env.PATH });
    const args = [
      'capacity',
      'test/e2e/fixtures/own-worker-scaling.yaml',
      '--worker',
      WORKER,
      '--slo',
      'p95(e2e) < 5s',
      '--start',
      '2',
      '--max',
      '3',
      '--factor',
      '1.5',
    ];
    const code = await runCli(
      [...args, '--step-duration', '5s', '--warmup', '2s', '--mode', 'step', '--out', out, '--quiet'],
      io,
    );
    expect(code, io.stderr.join('\n')).toBe(0);
    const snap = await workersOf(out);
    expect(snap.workers.reduce((n, w) => n + w.completed, 0)).toBeGreaterThan(0);
    for (const p of snap.processes) expect(alive(p.pid ?? 0), `pid ${String(p.pid)}`).toBe(false);
  }, 90_000);

  it('a second Ctrl-C quits at once and leaves no worker process behind (the built bin)', async () => {
    const out = await tempDir('own-worker-double-sigint');
    // Inherited by the worker processes (their environment is jobstorm's): how this test finds them.
    const mark = `JOBSTORM_TEST_MARK=${randomUUID()}`;
    const [markName = '', markValue = ''] = mark.split('=');
    // A worker slow to stop: a child of its own (as the worker library's heartbeat process is) that
    // ignores SIGTERM, so it is still there, inside its 10 s grace, when the second Ctrl-C comes.
    const worker = `trap '' TERM; ${WORKER} & sleep 120; wait`;
    const child = spawn(
      process.execPath,
      [
        join(root, 'dist/cli/main.js'),
        'run',
        'scenarios/smoke.yaml',
        '--worker',
        worker,
        '--duration',
        '60s',
        '--out',
        out,
      ],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, JOBSTORM_API_KEY: '', [markName]: markValue },
      },
    );
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      // Real time: the built CLI and its worker processes are real processes.
      const deadline = Date.now() + 45_000;
      while (!/running smoke/.test(stderr)) {
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`the run did not start: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 1000));
      const before = markedWorkers(mark);
      expect(before.length, 'worker processes while the run goes on').toBeGreaterThan(0);
      child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 200));
      const secondAt = Date.now();
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(130);
      // At once: not after the workers' SIGTERM grace (10 s) nor the drain.
      expect(Date.now() - secondAt).toBeLessThan(3000);
      let left = markedWorkers(mark);
      for (let i = 0; i < 40 && left.length > 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        left = markedWorkers(mark);
      }
      expect(left, `still running after the forced exit: ${left.join(', ')}`).toEqual([]);
      expect(existsSync(join(out, 'summary.json'))).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      for (const pid of markedWorkers(mark)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
  }, 90_000);
});
