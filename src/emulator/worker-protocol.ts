import type { ConfigIssue } from '../core/config-error.js';

/** What the owner hands the emulator's worker thread. */
export interface WorkerInit {
  /** Emulator options (structured-cloneable: no Clock instance). */
  options: unknown;
  /** One float64: the worker's manual-clock time, for the owner's clock view. */
  clockCell: SharedArrayBuffer;
  /** The owner's table of worker-process groups (ProcessGroups), when it keeps one. */
  groupsCell?: SharedArrayBuffer;
}

export type ToWorker = { type: 'close' };

export type FromWorker =
  | {
      type: 'ready';
      url: string;
      managementUrl: string;
      adminUrl: string;
      apiKey: string;
      manual: boolean;
      timeOrigin: number;
    }
  | { type: 'time'; now: number }
  | { type: 'error'; message: string; issues: ConfigIssue[] | undefined }
  | { type: 'closed' };
