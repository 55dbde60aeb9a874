import { readdir } from 'node:fs/promises';
import type { Summary } from '../../report/summary.js';
import { readJson, readText, writeAtomic } from './barrier-files.js';
import { every, type WallClock } from './wall-clock.js';

/**
 * The live dashboard of shards (issue 51): `jobstorm dashboard <barrier folder>` beats in
 * WATCH_FILE while a page is open, and each shard of the folder writes its summary so far to its
 * live file each second while that beat goes on, and its last summary once, when it ends. With no
 * page open, a shard only reads one small file a second: no summary is built.
 */
export const WATCH_FILE = 'dashboard.json';

/** How often a watched shard writes its live file. */
export const LIVE_MS = 1000;
/** A watch whose beat did not change for this long has no page open any more. */
export const WATCH_SILENCE_MS = 5000;

export function liveFile(index: number, count: number): string {
  return `live-${String(index)}-of-${String(count)}.json`;
}

const LIVE_NAME = /^live-(\d+)-of-(\d+)\.json$/;
/** A shard's announcement (barrier-files.ts): the run's shard count before any live file exists. */
const SHARD_NAME = /^(?:live|shard)-\d+-of-(\d+)\.json$/;

/** One shard's live file. */
export interface LiveShard {
  shard: string;
  /** Epoch ms on the shard's clock. */
  atMs: number;
  /** The shard's run ended: this summary is its last. */
  done: boolean;
  summary: Summary;
}

export interface WatchBeat {
  beat: number;
  atMs: number;
}

interface LiveFileOptions {
  folder: string;
  shard: { index: number; count: number };
  clock: WallClock;
  /** The shard's summary so far (RunSession.liveSummary). */
  summary: () => Summary | undefined;
}

/** A shard's side: writes its live file while watched, and its last summary at the end. */
export class ShardLiveFile {
  private stop: (() => void) | undefined;
  private busy = false;
  private writing: Promise<void> = Promise.resolve();
  private seenBeat: string | undefined;
  private changedMs = -Infinity;

  constructor(private readonly o: LiveFileOptions) {}

  start(): void {
    this.stop ??= every(this.o.clock, LIVE_MS, () => this.tick());
  }

  /** A tick that finds the last write going on (a slow volume) is skipped, not queued. */
  private tick(): void {
    if (this.busy) return;
    this.busy = true;
    this.writing = this.maybeWrite()
      .catch(() => undefined)
      .finally(() => (this.busy = false));
  }

  private async maybeWrite(): Promise<void> {
    const now = this.o.clock.now();
    const beat = await readText(this.o.folder, WATCH_FILE);
    if (beat !== undefined && beat !== this.seenBeat) {
      this.seenBeat = beat;
      this.changedMs = now;
    }
    if (now - this.changedMs > WATCH_SILENCE_MS) return;
    const summary = this.o.summary();
    if (summary) await this.write(summary, false);
  }

  private write(summary: Summary, done: boolean): Promise<void> {
    const { index, count } = this.o.shard;
    const value: LiveShard = {
      shard: `${String(index)}/${String(count)}`,
      atMs: this.o.clock.now(),
      done,
      summary,
    };
    return writeAtomic(this.o.folder, liveFile(index, count), value);
  }

  /** The run ended: its last summary, written whether watched or not (a page may open later). */
  async finish(summary: Summary): Promise<void> {
    this.stop?.();
    this.stop = undefined;
    await this.writing;
    await this.write(summary, true).catch(() => undefined);
  }
}

function asLiveShard(x: unknown): LiveShard | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const r = x as Partial<LiveShard>;
  if (typeof r.shard !== 'string' || typeof r.summary !== 'object') return undefined;
  return { shard: r.shard, atMs: r.atMs ?? 0, done: r.done === true, summary: r.summary };
}

/** The live files of a barrier folder, and how many shards the run has (from their names). */
export async function readLiveFolder(
  folder: string,
): Promise<{ shards: LiveShard[]; count: number | undefined }> {
  const all = await readdir(folder);
  const counts = all.map((n) => Number(SHARD_NAME.exec(n)?.[1] ?? 0));
  const count = counts.length && Math.max(...counts) > 0 ? Math.max(...counts) : undefined;
  const shards: LiveShard[] = [];
  for (const name of all.filter((n) => LIVE_NAME.test(n)).sort()) {
    // A file caught between writes is whole (written by rename); one that does not parse is skipped until the next read.
    const live = asLiveShard(await readJson(folder, name).catch(() => undefined));
    if (live) shards.push(live);
  }
  return { shards, count };
}

/** The watcher's beat: rewritten each second while a page is open. */
export function writeWatchBeat(folder: string, beat: WatchBeat): Promise<void> {
  return writeAtomic(folder, WATCH_FILE, beat);
}
