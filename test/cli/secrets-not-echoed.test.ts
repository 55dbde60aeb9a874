import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/*
 * A configuration error names the field and the problem, never the value of a field that can hold
 * a secret, whatever type the value has: a key from the environment that is all digits fails a
 * string field as a number and used to be printed ("got 31415926535"). Driven through the built
 * CLI, so everything it prints (stdout and stderr) is searched.
 */

const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'dist/cli/main.js');

const NUMERIC = '31415926535';
const LONG = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b';
const STAR = '*hunter2-not-an-alias';

interface Ran {
  code: number;
  output: string;
}

async function runCli(file: string): Promise<Ran> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    SECRET: NUMERIC,
    LONG_SECRET: LONG,
    STAR_SECRET: STAR,
  };
  return promisify(execFile)(process.execPath, [bin, 'run', file], { env, timeout: 30_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (err: unknown) => {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? -1, output: (e.stdout ?? '') + (e.stderr ?? '') };
    },
  );
}

const scenario = (steps: string, target = ''): string => `name: secrets
${target}phases:
  - { name: p, duration: 1s, rate: 1 }
flows:
  - name: f
    steps:
${steps}`;

function expectNoSecret(output: string): void {
  for (const secret of [NUMERIC, LONG, LONG.slice(0, 37), STAR.slice(1), 'hunter2'])
    expect(output).not.toContain(secret);
}

describe('configuration errors never echo a value that can be a secret', () => {
  it('names each secret-bearing field and its problem, of any type, without its value (exit 2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-secrets-'));
    const file = join(dir, 'secrets.yaml');
    await writeFile(
      file,
      scenario(
        `      - run:
          s3Config:
            accessId: \${SECRET}
            accessSecret: \${SECRET}
            bucketName: b
            endpointUrl: e
      - runsync:
          s3Config: \${SECRET}
      - run:
          s3Config: { accessId: ["\${LONG_SECRET}"], accessSecret: { nested: "\${LONG_SECRET}" }, bucketName: b, endpointUrl: e }
      - run:
          s3Config: { accessId: true, accessSecret: "x", bucketName: b, endpointUrl: e }
      - runsync:
          s3Config: \${LONG_SECRET}
`,
        `target:
  connections: fast
`,
      ),
    );
    const { code, output } = await runCli(file);
    expect(code).toBe(2);
    expectNoSecret(output);
    expect(output).toContain(
      'flows[0].steps[0].run.s3Config.accessId: expected a string, got a number (not shown',
    );
    expect(output).toContain(
      'flows[0].steps[0].run.s3Config.accessSecret: expected a string, got a number (not shown',
    );
    expect(output).toContain(
      'flows[0].steps[1].runsync.s3Config: expected an object, got a number (not shown',
    );
    expect(output).toContain('flows[0].steps[2].run.s3Config.accessId: expected a string, got a list');
    expect(output).toContain('flows[0].steps[2].run.s3Config.accessSecret: expected a string, got an object');
    expect(output).toContain('flows[0].steps[3].run.s3Config.accessId: expected a string, got true\n');
    expect(output).toContain(
      'flows[0].steps[4].runsync.s3Config: expected an object, got a string (not shown',
    );
    // A field that cannot hold a secret still shows what was written, so the redaction is targeted.
    expect(output).toContain('target.connections: expected a number, got "fast"');
  });

  it('a secret that YAML reads as an alias (*…) is a located error, not a crash that prints it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-secrets-'));
    const file = join(dir, 'alias.yaml');
    await writeFile(
      file,
      scenario(`      - run:
          s3Config: { accessId: a, accessSecret: \${STAR_SECRET}, bucketName: b, endpointUrl: e }
`),
    );
    const { code, output } = await runCli(file);
    expect(code).toBe(2);
    expectNoSecret(output);
    expect(output).toContain(
      `${file}:8:50: YAML: an alias (a value starting with *) names no anchor set before it`,
    );
    expect(output).not.toContain('internal error');
  });
});
