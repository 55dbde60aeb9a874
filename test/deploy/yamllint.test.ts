import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/*
 * The workflow and the manifests pass yamllint (Debian package `yamllint`; .ci/run installs it)
 * with the repository's .yamllint, in strict mode so warnings fail too.
 */

const repo = new URL('../../', import.meta.url).pathname;
const YAMLLINT = '/usr/bin/yamllint';

interface Lint {
  code: number;
  out: string;
}

async function yamllint(args: string[]): Promise<Lint> {
  if (!existsSync(YAMLLINT))
    throw new Error(
      `${YAMLLINT} is missing: install it with "apt-get install -y yamllint" (.ci/run does this)`,
    );
  return promisify(execFile)(YAMLLINT, ['-s', '-f', 'parsable', '-c', join(repo, '.yamllint'), ...args], {
    cwd: repo,
  }).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (err: unknown) => {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    },
  );
}

async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => relative(repo, join(e.parentPath, e.name)))
    .sort();
}

describe('yamllint on deploy/', () => {
  it('lints every YAML file under deploy/ and finds nothing', async () => {
    const listed = await yamllint(['--list-files', 'deploy']);
    expect(
      listed.out
        .split('\n')
        .filter((l) => l.length > 0)
        .sort(),
    ).toEqual(await yamlFiles(join(repo, 'deploy')));
    expect(await yamllint(['deploy'])).toEqual({ code: 0, out: '' });
  });

  it('the same configuration fails a file with lint errors and names them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-yamllint-'));
    const bad = join(dir, 'bad.yaml');
    await writeFile(
      bad,
      ['jobs:', '  a: 1', '  a: 2', 'steps:', '   - run: x   ', `long: ${'x'.repeat(130)}`, ''].join('\n'),
    );
    const result = await yamllint([bad]);
    expect(result.code).toBe(1);
    for (const rule of ['key-duplicates', 'trailing-spaces', 'line-length', 'indentation'])
      expect(result.out).toContain(`(${rule})`);
  });
});
