import { describe, expect, it } from 'vitest';
import { HealthResponseSchema } from '../../contracts/queue/schemas.js';
import { runCli } from '../../src/cli/cli.js';
import type { CliIo } from '../../src/cli/command.js';
import { call, until, valid } from './helpers.js';

function io(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const controller = new AbortController();
  const cli: CliIo = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env,
    interrupt: controller.signal,
    isTty: false,
  };
  return { cli, out, err, stop: () => controller.abort(new Error('interrupted')) };
}

describe('jobstorm emulate', () => {
  it('prints the base URL first, then the key it chose; serves until Ctrl-C, then exits 0', async () => {
    const t = io();
    const done = runCli(['emulate', '--port', '0', '--workers-max', '2', '--fault', 'health-drift'], t.cli);
    await until(() => t.out.length >= 2, 'startup lines');
    const url = t.out[0] ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2\/jobstorm$/);
    const key = /api key: (\S+)/.exec(t.out[1] ?? '')?.[1] ?? '';
    expect(key).not.toBe('');
    const r = await call({ apiKey: key }, 'GET', `${url}/health`);
    expect(r.status).toBe(200);
    valid(HealthResponseSchema, r.body);
    t.stop();
    expect(await done).toBe(0);
    await expect(call({ apiKey: key }, 'GET', `${url}/health`)).rejects.toThrow();
  });

  it('takes the key from --api-key or JOBSTORM_API_KEY and then does not print it', async () => {
    const t = io({ JOBSTORM_API_KEY: 'from-env' });
    const done = runCli(
      ['emulate', '--port', '0', '--endpoint', 'ep-1', '--endpoint', 'ep-2', '--clock', 'manual'],
      t.cli,
    );
    await until(() => t.out.length >= 1, 'startup line');
    expect(t.out[0]).toMatch(/\/v2\/ep-1$/);
    expect(t.out.join('\n')).not.toContain('from-env');
    expect((await call({ apiKey: 'from-env' }, 'GET', `${t.out[0] ?? ''}/health`)).status).toBe(200);
    expect(
      (await call({ apiKey: 'from-env' }, 'GET', `${(t.out[0] ?? '').replace(/ep-1$/, 'ep-2')}/health`))
        .status,
    ).toBe(200);
    t.stop();
    expect(await done).toBe(0);
  });

  it('bad options exit 2 and name every flag at fault', async () => {
    const t = io();
    const code = await runCli(
      [
        'emulate',
        '--port',
        '0',
        '--workers-min',
        '5',
        '--workers-max',
        '2',
        '--fault',
        'no-such',
        '--requests-per-worker',
        '-1',
      ],
      t.cli,
    );
    expect(code).toBe(2);
    const text = t.err.join('\n');
    expect(text).toContain('--workers-min');
    expect(text).toContain('--fault');
    expect(text).toContain('--requests-per-worker');
    expect(await runCli(['emulate', '--profile', '/no/such/profile.yaml'], io().cli)).toBe(2);
    expect(await runCli(['emulate', '--clock', 'sundial'], io().cli)).toBe(2);
  });
});
