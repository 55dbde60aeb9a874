import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import { JOBSTORM_VERSION } from '../../src/version.js';
import { captureIo } from '../helpers/cli-io.js';
import { MANAGEMENT_OPENAPI } from '../helpers/management-openapi.js';

const root = new URL('../../', import.meta.url).pathname;

/**
 * `npx jobstorm --version` in the project: a real process (npm reads its config and the tree), the
 * slowest thing here by far, so started before the file's first test and judged in its own; its
 * seconds pass while the in-process tests run.
 */
let npx: Promise<{ stdout: string } | { error: unknown }>;
beforeAll(() => {
  npx = promisify(execFile)('npx', ['--no-install', 'jobstorm', '--version'], { cwd: root }).then(
    ({ stdout }) => ({ stdout }),
    (error: unknown) => ({ error }),
  );
});

describe('jobstorm CLI', () => {
  it('--help lists every command DESIGN.md names', async () => {
    const io = captureIo();
    expect(await runCli(['--help'], io)).toBe(ExitCode.Ok);
    const help = io.stdout.join('\n');
    for (const cmd of ['run', 'emulate', 'check', 'report', 'merge', 'capacity', 'contract', 'init']) {
      expect(help).toMatch(new RegExp(`jobstorm ${cmd}\\b`));
    }
    expect(help).toContain('130 interrupted');
  });

  it('an unknown command or flag is a usage error (exit 2)', async () => {
    const io = captureIo();
    expect(await runCli(['frobnicate'], io)).toBe(ExitCode.Usage);
    expect(io.stderr.join('\n')).toMatch(/Unknown argument: frobnicate/);
    const io2 = captureIo();
    expect(await runCli(['contract', 'lint', 'x.json', '--bogus'], io2)).toBe(ExitCode.Usage);
    expect(io2.stderr.join('\n')).toMatch(/bogus/);
  });

  it('no command is a usage error', async () => {
    const io = captureIo();
    expect(await runCli([], io)).toBe(ExitCode.Usage);
  });

  it('the version matches package.json', async () => {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      version: string;
      engines: { node: string };
    };
    expect(JOBSTORM_VERSION).toBe(pkg.version);
    expect(pkg.engines.node).toBe('>=20.19');
  });
});

describe('jobstorm contract', () => {
  it('export --openapi writes a document that contract lint accepts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-contract-'));
    const file = join(dir, 'api.json');
    const io = captureIo();
    expect(await runCli(['contract', 'export', '--openapi', file], io)).toBe(ExitCode.Ok);
    const lintIo = captureIo();
    expect(await runCli(['contract', 'lint', file], lintIo)).toBe(ExitCode.Ok);
    expect(lintIo.stdout.join('\n')).toMatch(/valid 3\.1\.0 document/);
    expect(lintIo.stdout.join('\n')).toMatch(/POST\s+\/v2\/\{endpointId\}\/run\s+\(run\)/);
  });

  it('lint accepts a management document and prints its operations', async () => {
    const io = captureIo();
    expect(await runCli(['contract', 'lint', MANAGEMENT_OPENAPI], io)).toBe(ExitCode.Ok);
    expect(io.stdout.join('\n')).toMatch(/POST\s+\/pods\/\{podId\}\/start\s+\(StartPod\)/);
    expect(io.stdout.join('\n')).toMatch(/POST\s+\/endpoints\s+\(CreateEndpoint\)/);
  });

  it('lint rejects a dangling $ref with the parser error and exit 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-contract-'));
    const file = join(dir, 'broken.json');
    const doc = JSON.parse(await readFile(MANAGEMENT_OPENAPI, 'utf8')) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const create = doc.paths['/endpoints']?.post;
    if (!create) throw new Error('fixture changed');
    create.requestBody = {
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NoSuchInput' } } },
    };
    await writeFile(file, JSON.stringify(doc));
    const io = captureIo();
    expect(await runCli(['contract', 'lint', file], io)).toBe(ExitCode.Usage);
    expect(io.stderr.join('\n')).toMatch(/NoSuchInput/);
  });

  it('lint of a missing file names it, exit 2', async () => {
    const io = captureIo();
    expect(await runCli(['contract', 'lint', '/nonexistent/api.json'], io)).toBe(ExitCode.Usage);
    expect(io.stderr.join('\n')).toContain('/nonexistent/api.json');
  });
});

describe.concurrent('the installed bin', () => {
  it('runs from dist/ as npx would run it', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      join(root, 'dist/cli/main.js'),
      '--version',
    ]);
    expect(stdout.trim()).toBe(JOBSTORM_VERSION);
  });

  it('runs through npx in the project, as the README quick start does (the bin is executable)', async () => {
    const ran = await npx;
    if ('error' in ran) throw ran.error;
    expect(ran.stdout.trim()).toBe(JOBSTORM_VERSION);
    // npx itself (a real process that reads npm's config and the tree) took over 60 s on two busy
    // cores: the bound is for a hang, not for speed.
  }, 180_000);

  it('exits 2 for a usage error', async () => {
    const err = await promisify(execFile)(process.execPath, [join(root, 'dist/cli/main.js'), 'nope']).catch(
      (e: unknown) => e,
    );
    expect((err as { code?: number }).code).toBe(2);
  });
});

describe('jobstorm contract export --json-schema', () => {
  it('writes the JSON Schema of scenario files, which names every step', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-contract-'));
    const file = join(dir, 'scenario.schema.json');
    const io = captureIo();
    expect(await runCli(['contract', 'export', '--json-schema', file], io)).toBe(ExitCode.Ok);
    const schema = JSON.stringify(JSON.parse(await readFile(file, 'utf8')));
    for (const step of [
      'run',
      'runsync',
      'poll',
      'stream',
      'cancel',
      'retry',
      'purge',
      'health',
      'advance',
      'loop',
      'probe',
    ])
      expect(schema).toContain(`"${step}"`);
    expect(schema).toContain('"phases"');
  });
});
