import type { CliIo } from '../../src/cli/command.js';

export interface CapturedIo extends CliIo {
  stdout: string[];
  stderr: string[];
  controller: AbortController;
}

/** A CliIo that captures output, for running commands in-process. */
export function captureIo(env: Record<string, string | undefined> = {}): CapturedIo {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const controller = new AbortController();
  return {
    stdout,
    stderr,
    controller,
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    env,
    interrupt: controller.signal,
    isTty: false,
  };
}
