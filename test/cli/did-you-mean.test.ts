import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import { captureIo } from '../helpers/cli-io.js';

const root = new URL('../..', import.meta.url).pathname;
const smoke = join(root, 'scenarios/smoke.yaml');

describe('did-you-mean for flags and commands', () => {
  let server: Server;
  let requests = 0;
  let target = '';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    target = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/v2/abc`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a mistyped flag names the flag meant, exit 2, nothing sent', async () => {
    const io = captureIo({ JOBSTORM_API_KEY: 'k' });
    const code = await runCli(['run', smoke, '--target', target, '--duraton', '10s'], io);
    expect(code).toBe(ExitCode.Usage);
    const err = io.stderr.join('\n');
    expect(err).toContain('Unknown argument: duraton');
    expect(err).toContain('--duraton is not a flag of jobstorm run; did you mean --duration?');
    expect(requests).toBe(0);
  });

  it('a dashed flag is suggested once, though yargs names it twice', async () => {
    const io = captureIo();
    expect(await runCli(['run', smoke, '--rate-scal', '2'], io)).toBe(ExitCode.Usage);
    const hints = io.stderr
      .join('\n')
      .split('\n')
      .filter((l) => l.includes('did you mean'));
    expect(hints).toEqual(['--rate-scal is not a flag of jobstorm run; did you mean --rate-scale?']);
  });

  it('each command knows its own flags', async () => {
    const io = captureIo();
    expect(await runCli(['capacity', smoke, '--slos', 'p99(run) < 1s'], io)).toBe(ExitCode.Usage);
    expect(io.stderr.join('\n')).toContain('did you mean --slo?');
  });

  it('an unknown command names the command meant, by spelling or by the word other tools use', async () => {
    const start = captureIo();
    expect(await runCli(['start'], start)).toBe(ExitCode.Usage);
    expect(start.stderr.join('\n')).toContain('"start" is not a command; did you mean jobstorm run?');
    const typo = captureIo();
    expect(await runCli(['capacty', smoke], typo)).toBe(ExitCode.Usage);
    expect(typo.stderr.join('\n')).toContain('did you mean jobstorm capacity?');
    const none = captureIo();
    expect(await runCli(['frobnicate'], none)).toBe(ExitCode.Usage);
    expect(none.stderr.join('\n')).toContain('"frobnicate" is not a command; the commands are run, emulate');
    expect(requests).toBe(0);
  });
});
