import { z } from 'zod';
import { DurationSchema, durationText } from './field-schemas.js';

/**
 * `worker:`: real worker processes behind the embedded emulator. Its endpoint then has no
 * simulated workers; its autoscaler starts and stops this command instead. Scaling fields left out
 * take the `emulator:` section's values.
 */
export const WorkerSchema = z
  .strictObject({
    command: z
      .string()
      .min(1)
      .describe(
        'Shell command that starts one worker, e.g. "python3 handler.py"; run from the current directory.',
      ),
    env: z
      .record(z.string(), z.string())
      .default({})
      .describe('Extra environment for every worker (jobstorm sets the RUNPOD_* variables).'),
    workersMin: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Workers started at once and kept (default: emulator.workersMin).'),
    workersMax: z
      .number()
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe('Most worker processes at once (default: emulator.workersMax).'),
    idleTimeout: DurationSchema.optional().describe(
      durationText('Idle time before a worker is stopped (default: emulator.idleTimeout).', '5s'),
    ),
    stopGrace: DurationSchema.prefault('10s').describe(
      durationText('After SIGTERM, how long a worker may take to exit before SIGKILL.', '10s'),
    ),
  })
  .optional()
  .describe(
    'Run your own worker: jobstorm starts and stops these processes and they take the jobs through the worker protocol.',
  );

/** A scenario's worker processes, scaling settings resolved. */
export interface WorkerSpec {
  readonly command: string;
  readonly env: Readonly<Record<string, string>>;
  readonly workersMin: number;
  readonly workersMax: number;
  readonly idleTimeoutMs: number;
  readonly stopGraceMs: number;
}
