import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import type { CliIo } from '../../src/cli/command.js';
import { STDLIB_WORKER } from '../worker/python-worker.js';
import { call, until } from './helpers.js';

describe('jobstorm emulate --external-workers', () => {
  it('prints one export block; a worker started in a shell with exactly that block takes the jobs', async () => {
    const out: string[] = [];
    const controller = new AbortController();
    const cli: CliIo = {
      out: (t) => out.push(t),
      err: () => undefined,
      env: {},
      interrupt: controller.signal,
      isTty: false,
    };
    const done = runCli(['emulate', '--port', '0', '--external-workers'], cli);
    await until(() => out.some((l) => l.startsWith('export ')), 'the export block');
    const url = out[0] ?? '';
    const key = /api key: (\S+)/.exec(out[1] ?? '')?.[1] ?? '';
    const block = out.find((l) => l.startsWith('export ')) ?? '';
    for (const name of [
      'RUNPOD_WEBHOOK_GET_JOB',
      'RUNPOD_WEBHOOK_POST_OUTPUT',
      'RUNPOD_WEBHOOK_POST_STREAM',
      'RUNPOD_WEBHOOK_PING',
      'RUNPOD_AI_API_KEY',
      'RUNPOD_POD_ID',
      'RUNPOD_PING_INTERVAL',
      'RUNPOD_SKIP_AUTO_SYSTEM_CHECKS',
      'RUNPOD_SKIP_GPU_CHECK',
    ]) {
      expect(block).toContain(`${name}=`);
    }
    expect(block).toContain("/job-take/$ID?'");
    expect(block).toContain("/job-done/$RUNPOD_POD_ID/$ID?'");
    // No simulated workers: a job waits for a real one.
    const queued = await call({ apiKey: key }, 'POST', `${url}/run`, { body: { input: { x: 1 } } });
    const id = (queued.body as { id: string }).id;
    const before = await call({ apiKey: key }, 'GET', `${url}/health`);
    expect(before.body).toMatchObject({
      jobs: { inQueue: 1 },
      workers: { idle: 0, running: 0, initializing: 0 },
    });
    const shell = spawn('/bin/sh', ['-c', `${block}\nexec python3 ${STDLIB_WORKER}`], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: 'ignore',
    });
    try {
      await until(
        async () => {
          const s = await call({ apiKey: key }, 'GET', `${url}/status/${id}`);
          return (s.body as { status: string }).status === 'COMPLETED';
        },
        'the job completed by the worker',
        20_000,
      );
      const s = await call({ apiKey: key }, 'GET', `${url}/status/${id}`);
      expect(s.body).toMatchObject({ status: 'COMPLETED', output: { echo: { x: 1 } }, workerId: 'worker-1' });
    } finally {
      shell.kill('SIGKILL');
    }
    controller.abort(new Error('interrupted'));
    expect(await done).toBe(0);
  }, 40_000);
});
