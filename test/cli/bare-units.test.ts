import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/exit-code.js';
import { flowServer, type FlowServer } from '../e2e/flow-server.js';

/*
 * Issue 34 trap 1, at the command line: `--duration 10` ran for 10 ms and passed. The built CLI
 * now refuses a bare number in every duration flag and in a threshold, all at once, with both
 * readings, exit 2, and sends nothing.
 */

const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'dist/cli/main.js');

interface Ran {
  code: number;
  stderr: string;
}

async function jobstorm(args: string[]): Promise<Ran> {
  return promisify(execFile)(process.execPath, [bin, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeout: 30_000,
  }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (err: unknown) => {
      const e = err as { code?: number; stderr?: string };
      return { code: e.code ?? -1, stderr: e.stderr ?? '' };
    },
  );
}

const hint = (n: string): string =>
  `${n} has no unit: write "${n}s" (${n} seconds) or "${n}ms" (${n} milliseconds)`;

let server: FlowServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function target(): Promise<{ target: string[]; out: string }> {
  server = await flowServer();
  const out = join(await mkdtemp(join(tmpdir(), 'jobstorm-bare-')), 'out');
  return { target: ['--target', server.target, '--api-key', 'k', '--out', out], out };
}

describe('a bare number at the command line is exit 2 with both readings, and nothing is sent', () => {
  it('run scenarios/smoke.yaml --duration 10', async () => {
    const { target: flags, out } = await target();
    const ran = await jobstorm(['run', 'scenarios/smoke.yaml', '--duration', '10', ...flags]);
    expect(ran.code).toBe(ExitCode.Usage);
    expect(ran.stderr).toContain(`--duration: ${hint('10')}`);
    expect(server?.received).toEqual([]);
    expect(existsSync(out)).toBe(false);
  }, 40_000);

  it('every duration flag and a --threshold, all at once', async () => {
    const { target: flags } = await target();
    const ran = await jobstorm([
      'run',
      'scenarios/smoke.yaml',
      '--duration',
      '10',
      '--warmup',
      '5',
      '--graceful-stop',
      '30',
      '--export-interval',
      '5000',
      '--threshold',
      'p99(run) < 500',
      '--threshold',
      'rate(429) < 1%',
      ...flags,
    ]);
    expect(ran.code).toBe(ExitCode.Usage);
    for (const line of [
      `--duration: ${hint('10')}`,
      `--warmup: ${hint('5')}`,
      `--graceful-stop: ${hint('30')}`,
      `--export-interval: ${hint('5000')}`,
      `--threshold: "p99(run) < 500": ${hint('500')}`,
    ])
      expect(ran.stderr).toContain(line);
    expect(ran.stderr).not.toContain('rate(429)');
    expect(server?.received).toEqual([]);
  }, 40_000);

  it('a check id that names no check and a bare rate of 1 (issue 47): exit 2, nothing sent', async () => {
    const { target: flags } = await target();
    const ran = await jobstorm([
      'run',
      'scenarios/smoke.yaml',
      '--threshold',
      'count(violation:nosuch) == 0',
      '--threshold',
      'rate(violation:transition.bakwards) < 1%',
      '--threshold',
      'rate(429) < 1',
      ...flags,
    ]);
    expect(ran.code).toBe(ExitCode.Usage);
    expect(ran.stderr).toContain('"violation:nosuch" matches no check id');
    expect(ran.stderr).toContain('did you mean "violation:transition.backwards"?');
    expect(ran.stderr).toContain('1 is ambiguous: write "1%" (1 percent) or "100%"');
    expect(server?.received).toEqual([]);
  }, 40_000);

  it('0 needs no unit: --graceful-stop 0 and --warmup 0 are accepted', async () => {
    const { target: flags } = await target();
    const ran = await jobstorm([
      'run',
      'scenarios/smoke.yaml',
      '--graceful-stop',
      '0',
      '--warmup',
      '0',
      '--duration',
      'soon',
      ...flags,
    ]);
    expect(ran.code).toBe(ExitCode.Usage);
    expect(ran.stderr).toContain('--duration: expected a duration');
    expect(ran.stderr).not.toContain('--graceful-stop');
    expect(ran.stderr).not.toContain('--warmup');
  }, 40_000);

  it('a scenario with a bare duration and a bare time threshold: its field at file:line:column', async () => {
    const { target: flags } = await target();
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-bare-'));
    const file = join(dir, 'bare.yaml');
    await writeFile(
      file,
      'name: bare\nphases:\n  - { duration: 10, rate: 1 }\nflows:\n  - name: f\n    steps:\n      - health: {}\n',
    );
    const ran = await jobstorm(['run', file, ...flags]);
    expect(ran.code).toBe(ExitCode.Usage);
    expect(ran.stderr).toContain(`${file}:3:17: phases[0].duration: ${hint('10')}`);

    const thresholds = join(dir, 'thresholds.yaml');
    await writeFile(
      thresholds,
      'name: t\nphases:\n  - { duration: 1s, rate: 1 }\nflows:\n  - name: f\n    steps:\n      - health: {}\nthresholds:\n  - "violations == 0"\n  - "p99(health) < 250"\n',
    );
    const judged = await jobstorm(['run', thresholds, ...flags]);
    expect(judged.code).toBe(ExitCode.Usage);
    expect(judged.stderr).toContain(`thresholds[1]: "p99(health) < 250": ${hint('250')}`);
    expect(server?.received).toEqual([]);
  }, 40_000);

  it('a broken field and a bad threshold in one file are reported together (issue 47)', async () => {
    const { target: flags } = await target();
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-bare-'));
    const file = join(dir, 'both.yaml');
    await writeFile(
      file,
      'name: t\nphases:\n  - { duration: 1s, rate: nope }\nflows:\n  - name: f\n    steps:\n      - health: {}\nthresholds:\n  - "p99(health) < 250"\n  - threshold: "count(violation:nosuch) == 0"\n',
    );
    const ran = await jobstorm(['run', file, ...flags]);
    expect(ran.code).toBe(ExitCode.Usage);
    expect(ran.stderr).toContain('configuration error (3 problems)');
    expect(ran.stderr).toContain(`${file}:3:27: phases[0].rate: expected a number`);
    expect(ran.stderr).toContain(`${file}:9:5: thresholds[0]: "p99(health) < 250": ${hint('250')}`);
    expect(ran.stderr).toContain(`${file}:10:16: thresholds[1].threshold: "count(violation:nosuch) == 0"`);
    expect(server?.received).toEqual([]);
  }, 40_000);

  it('capacity --step-duration, --warmup and --slo', async () => {
    const { target: flags } = await target();
    const ran = await jobstorm([
      'capacity',
      'scenarios/smoke.yaml',
      '--step-duration',
      '20',
      '--warmup',
      '5',
      '--slo',
      'p95(e2e) < 10',
      ...flags,
    ]);
    expect(ran.code).toBe(ExitCode.Usage);
    for (const line of [
      `--step-duration: ${hint('20')}`,
      `--warmup: ${hint('5')}`,
      `--slo: "p95(e2e) < 10": ${hint('10')}`,
    ])
      expect(ran.stderr).toContain(line);
    expect(server?.received).toEqual([]);
  }, 40_000);
});
