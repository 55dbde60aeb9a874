import { z } from 'zod';

/** How the emulator starts real worker processes (`jobstorm run --worker`, a scenario's `worker:`). */
export const WorkerProcessSchema = z.strictObject({
  /** A shell command line, e.g. `python3 handler.py`. */
  command: z.string().min(1),
  /** The whole environment of the process (the caller passes its own plus the scenario's); RUNPOD_* are added. */
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  /** Folder for one log file per worker (stdout and stderr). */
  logDir: z.string().min(1),
  /** After SIGTERM, how long a worker may take before SIGKILL. */
  stopGraceMs: z.number().int().min(0).max(600_000).default(10_000),
});

export type WorkerProcess = z.output<typeof WorkerProcessSchema>;
