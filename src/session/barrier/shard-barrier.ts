import { formatDuration } from '../../scenario/duration.js';
import {
  announcementFile,
  asAnnouncement,
  asStopNotice,
  createOnce,
  ensureFolder,
  readJson,
  STOP_FILE,
  type Announcement,
  type StopNotice,
} from './barrier-files.js';
import { HeartbeatWriter, PeerSilence } from './heartbeat.js';
import type { Meeting, StartTogether } from './meeting.js';
import type { EpochClock } from '../../core/clock.js';
import { every, sleepUntil, wallClockOf, type WallClock } from './wall-clock.js';

/** Between the last announcement and the start: every shard polling the folder sees it by then. */
export const BARRIER_LEAD_MS = 2000;
/** How often a waiting shard reads the folder. */
const MEET_POLL_MS = 100;
/** How often a running shard looks for a stop notice: the others stop within this and a drain. */
const STOP_POLL_MS = 250;

export interface ShardBarrierOptions {
  folder: string;
  shard: { index: number; count: number };
  /** How long to wait for every shard before giving up (exit 3, nothing sent). */
  timeoutMs: number;
  /** This process, for the message when a shard comes twice (host and pid). */
  who: string;
  /** The owner's clock (the CLI's is the system's): the barrier's instants, waits and beats. */
  clock: EpochClock;
  leadMs?: number;
  /** How often this shard's heartbeat is rewritten (BEAT_MS). */
  beatMs?: number;
  /** A peer silent for this long stopped answering (SILENCE_MS). */
  silenceMs?: number;
}

function label(index: number, count: number): string {
  return `${String(index)}/${String(count)}`;
}

/**
 * `--barrier <folder>`: each shard writes its announcement (ready, at this instant on its clock),
 * waits until all n are there, and starts at the latest announcement's instant plus a lead. Every
 * shard computes that instant from the same files, so no shard has to choose it and none can
 * choose differently; the lead covers each one's polling and the volume's propagation. A shard that
 * ends early writes the stop notice; the others poll it and stop. A shard killed hard writes none:
 * while they run, shards beat (heartbeat.ts), and the first to see a peer silent for the bound
 * writes the notice in its name, so every shard stops on the same one.
 */
export class ShardBarrier implements StartTogether {
  readonly via = 'barrier' as const;
  private readonly clock: WallClock;
  private readonly me: string;
  private readonly heart: HeartbeatWriter;

  constructor(private readonly o: ShardBarrierOptions) {
    this.clock = wallClockOf(o.clock);
    this.me = label(o.shard.index, o.shard.count);
    this.heart = new HeartbeatWriter({ folder: o.folder, shard: o.shard, clock: this.clock }, o.beatMs);
  }

  async meet(signal: AbortSignal): Promise<Meeting> {
    const { folder, shard } = this.o;
    await ensureFolder(folder);
    const before = await this.peerStop();
    if (before) return this.stoppedBefore(before);
    const mine: Announcement = { shard: this.me, atMs: this.clock.now(), who: this.o.who };
    if (!(await createOnce(folder, announcementFile(shard.index, shard.count), mine))) {
      const earlier = asAnnouncement(await readJson(folder, announcementFile(shard.index, shard.count)));
      return {
        kind: 'halt',
        exit: 'usage',
        message: `shard ${this.me} already came to the barrier ${folder}${earlier ? ` (${earlier.who} at ${new Date(earlier.atMs).toISOString()})` : ''}: a shard runs once; give each run its own barrier folder`,
      };
    }
    return this.waitForAll(signal, mine.atMs);
  }

  private async waitForAll(signal: AbortSignal, sinceMs: number): Promise<Meeting> {
    const { folder, shard, timeoutMs } = this.o;
    const seen = new Map<number, Announcement>();
    for (;;) {
      await this.readAnnouncements(seen);
      if (seen.size === shard.count) {
        const plannedMs =
          Math.max(...[...seen.values()].map((a) => a.atMs)) + (this.o.leadMs ?? BARRIER_LEAD_MS);
        await sleepUntil(this.clock, plannedMs, signal);
        if (signal.aborted) return this.interrupted();
        return { kind: 'start', via: 'barrier', plannedMs, atMs: Math.max(plannedMs, this.clock.now()) };
      }
      const stop = await this.peerStop();
      if (stop) return this.stoppedBefore(stop);
      if (signal.aborted) return this.interrupted();
      if (this.clock.now() - sinceMs >= timeoutMs) {
        const missing = Array.from({ length: shard.count }, (_, i) => i + 1).filter((i) => !seen.has(i));
        const reason = `barrier timeout: shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => label(i, shard.count)).join(', ')} did not come to ${folder} within ${formatDuration(timeoutMs)}`;
        await this.stopOthers(reason);
        return { kind: 'halt', exit: 'aborted', message: `${reason}; nothing was sent` };
      }
      await sleepUntil(this.clock, this.clock.now() + MEET_POLL_MS, signal);
    }
  }

  private async readAnnouncements(seen: Map<number, Announcement>): Promise<void> {
    const { folder, shard } = this.o;
    for (let i = 1; i <= shard.count; i++) {
      if (seen.has(i)) continue;
      const a = asAnnouncement(await readJson(folder, announcementFile(i, shard.count)));
      if (a) seen.set(i, a);
    }
  }

  private async interrupted(): Promise<Meeting> {
    const reason = 'interrupted before the start (Ctrl-C or SIGTERM)';
    await this.stopOthers(reason);
    return { kind: 'halt', exit: 'interrupted', message: `${reason}; nothing was sent` };
  }

  private stoppedBefore(notice: StopNotice): Meeting {
    return {
      kind: 'halt',
      exit: 'aborted',
      notice,
      message: `shard ${notice.shard} stopped the run before this shard started (${notice.reason}); nothing was sent`,
    };
  }

  /** A stop notice another shard wrote, if one was written. */
  private async peerStop(): Promise<StopNotice | undefined> {
    const n = asStopNotice(await readJson(this.o.folder, STOP_FILE));
    return n && (n.by ?? n.shard) !== this.me ? n : undefined;
  }

  /** A peer silent for the bound: its notice, written in its name (the first notice of a run stands). */
  private async silentPeer(silence: PeerSilence): Promise<StopNotice | undefined> {
    const i = await silence.silent();
    if (i === undefined) return undefined;
    const notice: StopNotice = {
      shard: label(i, this.o.shard.count),
      reason: `stopped answering (no heartbeat for ${formatDuration(silence.silenceMs)})`,
      atMs: this.clock.now(),
      by: this.me,
    };
    await createOnce(this.o.folder, STOP_FILE, notice);
    return asStopNotice(await readJson(this.o.folder, STOP_FILE)) ?? notice;
  }

  /** Starts this shard's heartbeat, and watches for a stop notice or a silent peer. */
  watch(onStop: (notice: StopNotice) => void): () => void {
    this.heart.start();
    const silence = new PeerSilence(
      { folder: this.o.folder, shard: this.o.shard, clock: this.clock },
      this.o.silenceMs,
    );
    let busy = false;
    let done = false;
    const stopPolls = every(this.clock, STOP_POLL_MS, () => {
      if (busy || done) return;
      busy = true;
      this.stopOrSilence(silence).then(
        (n) => {
          busy = false;
          if (!n || done) return;
          done = true;
          stopPolls();
          onStop(n);
        },
        // An unreadable notice (a volume hiccup) is read again at the next poll.
        () => (busy = false),
      );
    });
    return () => {
      done = true;
      stopPolls();
    };
  }

  private async stopOrSilence(silence: PeerSilence): Promise<StopNotice | undefined> {
    return (await this.peerStop()) ?? (await this.silentPeer(silence));
  }

  /** This shard's run ended: its heartbeat's last beat says so. */
  finish(): Promise<void> {
    return this.heart.end();
  }

  async stopOthers(reason: string): Promise<void> {
    const notice: StopNotice = { shard: this.me, reason, atMs: this.clock.now() };
    await createOnce(this.o.folder, STOP_FILE, notice);
  }
}
