import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The standard-library Python worker (stdlib_worker.py), for tests. */
export const STDLIB_WORKER = fileURLToPath(new URL('./stdlib_worker.py', import.meta.url));

export interface PythonWorker {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts the Python worker with the given RUNPOD_* environment and pod id. */
export function startPythonWorker(
  env: Record<string, string>,
  podId: string,
  extra: Record<string, string> = {},
): PythonWorker {
  const child = spawn('python3', [STDLIB_WORKER], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env, RUNPOD_POD_ID: podId, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (b: Buffer) => (text += b.toString()));
  child.stderr.on('data', (b: Buffer) => (text += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => text, exited };
}
