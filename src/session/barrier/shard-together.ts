import type { EpochClock } from '../../core/clock.js';
import type { RunInfo } from '../../report/summary.js';
import type { RunOutcome } from '../../runner/run-options.js';
import type { StopNotice } from './barrier-files.js';
import type { Meeting, StartTogether } from './meeting.js';

/** Later than this after the agreed instant, a shard says it started late (a timer wakes a few ms late). */
const LATE_MS = 50;

/** Why this shard did not start (`halt`), for its owner's exit code and message. */
export type Halt = Extract<Meeting, { kind: 'halt' }>;

/**
 * A session's side of starting and stopping together: meets the other shards before time 0,
 * watches for their stop notices while the run goes, and tells them when this shard ends early.
 * `stop` stops this run as a first Ctrl-C does; `warn` says so at once.
 */
export class ShardTogether {
  private started: Extract<Meeting, { kind: 'start' }> | undefined;
  private stopped: StopNotice | undefined;
  private halted: Halt | undefined;
  private told = false;
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly t: StartTogether,
    /** This shard, `i/n`. */
    private readonly me: string,
    private readonly stop: (why: string) => void,
    private readonly warn: (message: string) => void,
    /** The run's clock: a shard that does not start still hands the runner a time 0 from it. */
    private readonly clock: EpochClock,
  ) {}

  /** Why the shard did not start, when it did not. */
  get halt(): Halt | undefined {
    return this.halted;
  }

  /** The runner's `startAt`: resolves with time 0 (epoch ms). */
  async startAt(signal: AbortSignal): Promise<number> {
    const met = await this.t.meet(signal);
    if (met.kind === 'halt') {
      this.halted = met;
      if (met.notice) this.stopped = met.notice;
      // Told the others already (a timeout writes its notice) or need not (a peer's notice).
      this.told = true;
      this.stop(met.message);
      return this.clock.epochNow();
    }
    this.started = met;
    const lateMs = met.atMs - met.plannedMs;
    if (lateMs >= LATE_MS)
      this.warn(
        `started ${String(Math.round(lateMs))} ms after the agreed instant ${new Date(met.plannedMs).toISOString()} (its readiness took longer): this shard's schedule is that much behind the others'`,
      );
    this.unwatch = this.t.watch((n) => this.peerStopped(n));
    return met.atMs;
  }

  private peerStopped(n: StopNotice): void {
    if (this.told) return;
    this.stopped = n;
    this.told = true;
    // A notice written by another shard than the one it names: that one fell silent.
    const why =
      n.by === undefined ? `stopped by shard ${n.shard}: ${n.reason}` : `shard ${n.shard} ${n.reason}`;
    this.warn(`${why}; arrivals stopped, requests in flight drain`);
    this.stop(`stopped by shard ${n.shard}`);
  }

  /** This shard ended early: the others stop too (once; not when a peer stopped this one). */
  async endedEarly(reason: string): Promise<void> {
    if (this.told) return;
    this.told = true;
    this.unwatch?.();
    await this.t
      .stopOthers(reason)
      .catch((err: unknown) =>
        this.warn(
          `could not tell the other shards that this one stopped (${err instanceof Error ? err.message : String(err)}): they run on`,
        ),
      );
  }

  /**
   * Runs `go` (the runner, given this as its `startAt`) so that this shard's Ctrl-C, failure or
   * unreachable target stops the others too.
   */
  async around(
    interrupt: AbortSignal | undefined,
    go: (startAt: () => Promise<number>) => Promise<RunOutcome>,
  ): Promise<RunOutcome> {
    const signal = interrupt ?? new AbortController().signal;
    const tell = (): void => {
      const why = signal.reason instanceof Error ? signal.reason.message : 'interrupted';
      void this.endedEarly(why === 'interrupted' ? 'interrupted (Ctrl-C or SIGTERM)' : why);
    };
    signal.addEventListener('abort', tell, { once: true });
    try {
      const outcome = await go(() => this.startAt(signal));
      const early = outcome.failure ?? (outcome.targetUnreachable ? 'the target was unreachable' : undefined);
      if (early !== undefined) await this.endedEarly(early);
      return outcome;
    } catch (err) {
      await this.endedEarly(`failed: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    } finally {
      signal.removeEventListener('abort', tell);
      this.unwatch?.();
      await this.t
        .finish()
        .catch((err: unknown) =>
          this.warn(
            `could not tell the other shards that this one ended (${err instanceof Error ? err.message : String(err)}): they may take its silence for a death`,
          ),
        );
    }
  }

  /** The summary's fields: when this shard started, and which shard stopped it. */
  runInfo(): Pick<RunInfo, 'startAt' | 'stoppedBy'> {
    const s = this.started;
    const late = s ? Math.round(s.atMs - s.plannedMs) : 0;

    const stopped =
      this.stopped ?? (this.halted ? { shard: this.me, reason: this.halted.message, atMs: 0 } : undefined);
    return {
      ...(s
        ? {
            startAt: {
              at: new Date(s.plannedMs).toISOString(),
              via: s.via,
              ...(late >= 1 ? { lateMs: late } : {}),
            },
          }
        : {}),
      ...(stopped
        ? {
            stoppedBy: {
              shard: stopped.shard,
              reason: stopped.reason,
              ...(stopped.atMs > 0 ? { at: new Date(stopped.atMs).toISOString() } : {}),
            },
          }
        : {}),
    };
  }
}
