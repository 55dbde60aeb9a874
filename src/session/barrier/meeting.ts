import type { StopNotice } from './barrier-files.js';

export type { StopNotice } from './barrier-files.js';

/** How the shards of a run agree on their start: a shared folder, or an instant given to all. */
export type MeetingVia = 'barrier' | 'start-at';

/** What a shard learns before its time 0. */
export type Meeting =
  | {
      kind: 'start';
      /** Epoch ms of this shard's time 0: the agreed instant, or now when it came late. */
      atMs: number;
      /** Epoch ms of the agreed instant. */
      plannedMs: number;
      via: MeetingVia;
    }
  | {
      kind: 'halt';
      /** One line for the user: why this shard does not start. */
      message: string;
      /** Usage: the shard must not run (it already ran); aborted: its peers never came or stopped. */
      exit: 'usage' | 'aborted' | 'interrupted';
      /** A peer's stop notice, when a peer stopped the run before this shard started. */
      notice?: StopNotice;
    };

/**
 * The shards of one run start their schedules together and stop together, with no coordinator:
 * `--barrier <folder>` (ShardBarrier) or `--start-at <instant>` (StartInstant). The session calls
 * `meet` after its own readiness (preflight, warm-up), just before time 0.
 */
export interface StartTogether {
  readonly via: MeetingVia;
  /** Resolves at the agreed instant (or at once, when the shard must not start). */
  meet(signal: AbortSignal): Promise<Meeting>;
  /**
   * While the run goes: `onStop` once when another shard stopped early or stopped answering.
   * Returns a cancel (of the watch only: this shard still answers until `finish`).
   */
  watch(onStop: (notice: StopNotice) => void): () => void;
  /** This shard ended early: tell the others (the first notice of a run stands). */
  stopOthers(reason: string): Promise<void>;
  /** This shard's run ended, however it ended: its silence from now on is not a death. */
  finish(): Promise<void>;
}
