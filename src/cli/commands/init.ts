import { stat, mkdir, writeFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { ConfigError } from '../../core/config-error.js';
import { ExitCode } from '../../core/exit-code.js';
import type { JobstormCommand } from '../command.js';
import { installLines, installationFor } from '../init/install-advice.js';
import { nextCommands, starterScenario, type StarterFormat } from '../init/starter-scenario.js';

interface InitArgs {
  path?: string;
  ts?: boolean;
  force?: boolean;
}

const EXTENSIONS: Record<StarterFormat, readonly string[]> = {
  yaml: ['.yaml', '.yml'],
  ts: ['.ts', '.mts', '.cts'],
};
const DEFAULT_NAME: Record<StarterFormat, string> = { yaml: 'load.yaml', ts: 'load.ts' };

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** Where to write and in which format: a file name's extension decides, `--ts` must agree. */
async function destination(
  path: string | undefined,
  ts: boolean,
): Promise<{ file: string; format: StarterFormat }> {
  const wanted: StarterFormat = ts ? 'ts' : 'yaml';
  if (path === undefined || path === '') return { file: DEFAULT_NAME[wanted], format: wanted };
  if (path.endsWith('/') || (await isDirectory(path)))
    return { file: join(path, DEFAULT_NAME[wanted]), format: wanted };
  const ext = extname(path).toLowerCase();
  const format = (Object.keys(EXTENSIONS) as StarterFormat[]).find((f) => EXTENSIONS[f].includes(ext));
  if (format === undefined) {
    const names = [...EXTENSIONS.yaml, ...EXTENSIONS.ts].join(', ');
    throw new ConfigError([
      {
        where: path,
        message: `jobstorm init writes a ${names} file; "${ext || '(no extension)'}" is none of them`,
      },
    ]);
  }
  if (ts && format !== 'ts') {
    throw new ConfigError([
      {
        where: '--ts',
        message: `--ts writes TypeScript, but ${path} is a YAML file name (use a .ts name, or drop --ts)`,
      },
    ]);
  }
  return { file: path, format };
}

async function write(file: string, text: string, force: boolean): Promise<void> {
  await mkdir(dirname(resolve(file)), { recursive: true });
  try {
    await writeFile(file, text, { flag: force ? 'w' : 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ConfigError([
        {
          where: file,
          message: 'already exists; jobstorm init leaves it as it is (pass --force to replace it)',
        },
      ]);
    }
    throw new ConfigError([
      {
        where: file,
        message: `cannot write the starter scenario (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      },
    ]);
  }
}

export const initCommand: JobstormCommand<InitArgs> = {
  command: 'init [path]',
  describe: 'Write a starter scenario that runs as it is against the emulator',
  builder: (y: Argv) =>
    y
      .positional('path', {
        type: 'string',
        describe: 'file or folder to write (default: load.yaml, or load.ts with --ts)',
      })
      .option('ts', {
        type: 'boolean',
        default: false,
        describe: 'write a TypeScript scenario (defineScenario) instead of YAML',
      })
      .option('force', { type: 'boolean', default: false, describe: 'replace the file if it exists' }),
  examples: [
    ['$0 init', 'write load.yaml here'],
    ['$0 init --ts scenarios/', 'write scenarios/load.ts'],
  ],
  run: async (args, io) => {
    const { file, format } = await destination(args.path, args.ts === true);
    await write(file, starterScenario(format, file), args.force === true);
    const installation = installationFor(file);
    const next = nextCommands(file);
    io.out(`wrote ${file}, a starter ${format === 'ts' ? 'TypeScript' : 'YAML'} scenario`);
    const install = installLines(installation, format === 'ts');
    if (install.length > 0) io.out(`\n${install.join('\n')}`);
    io.out(`\nrun it against the embedded emulator:\n  ${next.emulator}`);
    io.out(`\nthen against your endpoint (the key from the environment, never the command line):`);
    io.out(`  export JOBSTORM_API_KEY=<your key>\n  ${next.target}`);
    return ExitCode.Ok;
  },
};
