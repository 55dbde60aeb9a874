import { heartbeatFile, isDone, readText, writeAtomic, type Heartbeat } from './barrier-files.js';
import { every, type WallClock } from './wall-clock.js';

/**
 * A shard killed hard (SIGKILL, the OOM killer) writes no stop notice: its peers learn of it only
 * by its silence. Each running shard rewrites its heartbeat file every beat; each peer notes, by its
 * own clock, when it last saw that file's content change, so neither the volume's clock nor the
 * clocks' offset between machines matters. A shard that ends writes `done` last: its silence after
 * that is an end, not a death (shards end a little apart).
 */

/** How often a running shard rewrites its heartbeat. */
export const BEAT_MS = 1000;
/** A peer whose heartbeat did not change for this long stopped answering: the others stop. */
export const SILENCE_MS = 10_000;

export interface Place {
  folder: string;
  shard: { index: number; count: number };
  clock: WallClock;
}

function label(index: number, count: number): string {
  return `${String(index)}/${String(count)}`;
}

/** This shard's heartbeat: beats from `start` until `end`, which writes the done marker. */
export class HeartbeatWriter {
  private beat = 0;
  private stopBeats: (() => void) | undefined;
  private busy = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly p: Place,
    private readonly beatMs = BEAT_MS,
  ) {}

  start(): void {
    if (this.stopBeats) return;
    this.stopBeats = every(this.p.clock, this.beatMs, () => this.tick());
    this.tick();
  }

  /** A beat that finds the last one still writing (a slow volume) is skipped, not queued. */
  private tick(): void {
    if (this.busy) return;
    this.busy = true;
    // An unwritable beat (a volume hiccup) is written again at the next one.
    this.writing = this.write(false)
      .catch(() => undefined)
      .finally(() => (this.busy = false));
  }

  private write(done: boolean): Promise<void> {
    const { folder, shard, clock } = this.p;
    this.beat++;
    const value: Heartbeat = {
      shard: label(shard.index, shard.count),
      beat: this.beat,
      atMs: clock.now(),
      ...(done ? { done: true } : {}),
    };
    return writeAtomic(folder, heartbeatFile(shard.index, shard.count), value);
  }

  /** The run ended: the last beat says so. Nothing when it never beat (it never started). */
  async end(): Promise<void> {
    if (!this.stopBeats) return;
    this.stopBeats();
    this.stopBeats = undefined;
    await this.writing;
    await this.write(true);
  }
}

interface Seen {
  text: string | undefined;
  /** When this shard saw the content change, on its own clock. */
  changedMs: number;
  done: boolean;
}

/** The peers' heartbeats as one shard sees them; silence counts from the watch's start. */
export class PeerSilence {
  private readonly peers = new Map<number, Seen>();

  constructor(
    private readonly p: Place,
    readonly silenceMs = SILENCE_MS,
  ) {
    const since = p.clock.now();
    for (let i = 1; i <= p.shard.count; i++)
      if (i !== p.shard.index) this.peers.set(i, { text: undefined, changedMs: since, done: false });
  }

  /** Reads the peers' heartbeats: the first one silent for the bound (it died, or never began), if any. */
  async silent(): Promise<number | undefined> {
    const { folder, shard, clock } = this.p;
    for (const [i, seen] of this.peers) {
      if (seen.done) continue;
      const text = await readText(folder, heartbeatFile(i, shard.count));
      const now = clock.now();
      if (text !== undefined && text !== seen.text) {
        seen.text = text;
        seen.changedMs = now;
        seen.done = isDone(text);
      } else if (now - seen.changedMs >= this.silenceMs) return i;
    }
    return undefined;
  }
}
