import { execFile } from 'node:child_process';
import { chmod, chown, copyFile, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join, posix, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDockerfile, type Instruction } from './dockerfile.js';

/*
 * No image builder runs here (the base image would have to come from a container registry), so
 * this replays deploy/container/Dockerfile: every file its COPY lines name, as a clean clone has
 * them (tracked by git), goes into an empty folder that stands for the image's root, and its RUN
 * lines run there with the image's absolute paths mapped into that folder. The result must be a
 * jobstorm that runs, as the image's user, from nothing but what the image holds.
 */

const repo = new URL('../../', import.meta.url).pathname;
const dockerfile = join(repo, 'deploy/container/Dockerfile');
const run = promisify(execFile);
/** The node image's `node` user, which USER names and the Kubernetes securityContext runs as. */
const NODE_UID = 1000;

interface Image {
  root: string;
  workdir: string;
  user: string;
  entrypoint: string[];
  env: Record<string, string>;
}

/** Paths the image writes to, mapped into the replay folder; system paths (/bin/sh) stay. */
function mapPaths(command: string, root: string, workdir: string): string {
  const prefixes = [workdir, '/usr/local'].map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return command.replace(
    new RegExp(`(^|[\\s=:'"])(${prefixes.join('|')})(?=/|\\s|$|['"])`, 'g'),
    (_m, before: string, path: string) => `${before}${root}${path}`,
  );
}

async function trackedFiles(source: string): Promise<string[]> {
  const { stdout } = await run('git', ['ls-files', '-z', '--', source], { cwd: repo, maxBuffer: 64 << 20 });
  return stdout.split('\0').filter((f) => f.length > 0);
}

async function copyLine(
  step: Extract<Instruction, { kind: 'COPY' }>,
  root: string,
  workdir: string,
): Promise<void> {
  const dest = posix.isAbsolute(step.dest) ? step.dest : posix.join(workdir, step.dest);
  const intoFolder = step.dest.endsWith('/') || step.sources.length > 1;
  for (const source of step.sources) {
    const files = await trackedFiles(source);
    if (files.length === 0)
      throw new Error(`Dockerfile:${String(step.line)}: COPY ${source}: no such file in a clean clone`);
    for (const file of files) {
      const target =
        file === source
          ? intoFolder
            ? posix.join(dest, basename(file))
            : dest
          : posix.join(dest, relative(source, file));
      await mkdir(dirname(join(root, target)), { recursive: true });
      await copyFile(join(repo, file), join(root, target));
    }
  }
}

async function build(text: string): Promise<Image> {
  if (existsSync(join(repo, '.dockerignore')))
    throw new Error('.dockerignore exists: teach this replay to honour it');
  const root = await mkdtemp(join(tmpdir(), 'jobstorm-image-'));
  await chmod(root, 0o755);
  await mkdir(join(root, 'usr/local/bin'), { recursive: true });
  const image: Image = { root, workdir: '/', user: 'root', entrypoint: [], env: {} };
  try {
    await replay(parseDockerfile(text), image);
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    throw err;
  }
  return image;
}

async function replay(steps: Instruction[], image: Image): Promise<void> {
  const root = image.root;
  for (const step of steps) {
    switch (step.kind) {
      case 'FROM':
        expect(
          step.image,
          'the replay runs on this machine’s Node; the image must use the same major',
        ).toMatch(new RegExp(`^node:${process.versions.node.split('.')[0] ?? ''}(-|$)`));
        break;
      case 'WORKDIR':
        image.workdir = posix.isAbsolute(step.path) ? step.path : posix.join(image.workdir, step.path);
        await mkdir(join(root, image.workdir), { recursive: true });
        break;
      case 'COPY':
        await copyLine(step, root, image.workdir);
        break;
      case 'ENV':
        image.env[step.name] = step.value;
        break;
      case 'RUN': {
        const env = { ...buildEnv(image), npm_config_prefer_offline: 'true' };
        await run('sh', ['-c', mapPaths(step.command, root, image.workdir)], {
          cwd: join(root, image.workdir),
          env,
          maxBuffer: 64 << 20,
        }).catch((err: unknown) => {
          const e = err as { code?: number; stdout?: string; stderr?: string };
          throw new Error(
            `Dockerfile:${String(step.line)}: RUN failed (exit ${String(e.code)})\n${e.stdout ?? ''}\n${(e.stderr ?? '').slice(-4000)}`,
          );
        });
        break;
      }
      case 'USER':
        image.user = step.user;
        break;
      case 'ENTRYPOINT':
        image.entrypoint = step.argv;
        break;
    }
  }
}

/** The image's PATH (its /usr/local/bin first), this machine's node, and the npm cache. */
function buildEnv(image: Image): Record<string, string> {
  const env: Record<string, string> = {
    PATH: [join(image.root, 'usr/local/bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter),
    HOME: process.env.HOME ?? '/root',
    ...image.env,
  };
  if (process.env.npm_config_cache !== undefined) env.npm_config_cache = process.env.npm_config_cache;
  return env;
}

/** Where the image's PATH finds the ENTRYPOINT's program. */
function entrypoint(image: Image): string {
  const [program] = image.entrypoint;
  if (program === undefined) throw new Error('the Dockerfile has no ENTRYPOINT');
  const found = (buildEnv(image).PATH ?? '')
    .split(delimiter)
    .map((d) => join(d, program))
    .find((p) => existsSync(p));
  if (found === undefined) throw new Error(`ENTRYPOINT ${program} is not on the image's PATH`);
  return found;
}

describe('deploy/container/Dockerfile, replayed from a clean clone', () => {
  let image: Image | undefined;
  const built = (): Image => {
    if (image === undefined) throw new Error('the replayed build failed (see beforeAll)');
    return image;
  };

  beforeAll(async () => {
    image = await build(await readFile(dockerfile, 'utf8'));
  }, 600_000);

  afterAll(async () => {
    if (image !== undefined) await rm(image.root, { recursive: true, force: true });
  });

  it('puts a jobstorm on the PATH that reports the package version', async () => {
    const image = built();
    const pkg = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { version: string };
    const { stdout } = await run(entrypoint(image), [...image.entrypoint.slice(1), '--version'], {
      env: buildEnv(image),
    });
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('keeps runtime dependencies and prunes the compiler', async () => {
    const image = built();
    const modules = await readdir(join(image.root, image.workdir, 'node_modules'));
    expect(modules).toContain('yaml');
    expect(modules).toContain('uplot');
    expect(modules).not.toContain('typescript');
    expect(modules).not.toContain('vitest');
  });

  it('runs a scenario as the image user (uid 1000) against its built-in emulator and writes every report', async () => {
    const image = built();
    expect(image.user).toBe('node');
    const asRoot = process.getuid?.() === 0;
    const out = join(image.root, 'reports/smoke');
    const home = join(image.root, 'home/node');
    await mkdir(out, { recursive: true });
    await mkdir(home, { recursive: true });
    if (asRoot) {
      await chown(join(image.root, 'reports'), NODE_UID, NODE_UID);
      await chown(out, NODE_UID, NODE_UID);
      await chown(home, NODE_UID, NODE_UID);
    }
    // One second of smoke's load, not its four: a run against the image's own emulator, judged, with
    // every report, is what shows the image works; more seconds of the same requests prove no more.
    const args = [
      ...image.entrypoint.slice(1),
      'run',
      'scenarios/smoke.yaml',
      '--duration',
      '1s',
      '--out',
      out,
      '--quiet',
    ];
    const result = await run(entrypoint(image), args, {
      cwd: join(image.root, image.workdir),
      env: { ...buildEnv(image), HOME: home },
      ...(asRoot ? { uid: NODE_UID, gid: NODE_UID } : {}),
      timeout: 120_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: unknown) => {
        const e = err as { code?: number; stderr?: string };
        return { code: e.code ?? -1, stderr: e.stderr ?? '' };
      },
    );
    // 0, or 1 when this loaded machine made the smoke run miss a threshold: either way the image
    // ran the scenario to its end and judged it. Anything else (a crash, a missing file) is not.
    expect([0, 1], result.stderr).toContain(result.code);
    expect((await readdir(out)).sort()).toEqual(
      expect.arrayContaining(['junit.xml', 'report.html', 'summary.json', 'summary.md']),
    );
  }, 180_000);
});
