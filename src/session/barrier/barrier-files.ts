import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The barrier folder's files. Shards on different machines share only this folder (a volume both
 * mount), so every file is written whole before its name appears (temp file, then rename or link):
 * a reader never sees half a file. Instants are written in the files, never read from mtimes, so a
 * shared volume's own clock does not matter.
 */

/** A shard's announcement: it is ready and waits for the others. */
export interface Announcement {
  shard: string;
  /** Epoch ms on the announcing shard's clock. */
  atMs: number;
  /** Which process announced (host and pid), for the message when a shard comes twice. */
  who: string;
}

/** A shard ended early (or gave up waiting): every other shard stops too. */
export interface StopNotice {
  /** `i/n`. */
  shard: string;
  /** One line: why it stopped. */
  reason: string;
  /** Epoch ms on the stopping shard's clock. */
  atMs: number;
  /** The shard that wrote it, when not `shard` itself (a peer that saw `shard` fall silent). */
  by?: string;
}

/**
 * A running shard's heartbeat, rewritten every beat: its content changes (the beat count, this
 * shard's instant), and readers judge a change by their own clock, never by the volume's mtime.
 */
export interface Heartbeat {
  shard: string;
  beat: number;
  /** Epoch ms on the beating shard's clock. */
  atMs: number;
  /** The shard's run ended (however): its silence from now on is not a death. */
  done?: true;
}

export const STOP_FILE = 'stop.json';

export function announcementFile(index: number, count: number): string {
  return `shard-${String(index)}-of-${String(count)}.json`;
}

export function heartbeatFile(index: number, count: number): string {
  return `heartbeat-${String(index)}-of-${String(count)}.json`;
}

/** Unique across the shards sharing the folder (other hosts too), not a time: a random UUID. */
function tempName(folder: string, name: string): string {
  return join(folder, `.${name}.${randomUUID()}.tmp`);
}

export async function ensureFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true });
}

/** Writes `name` whole or not at all, replacing what was there. */
export async function writeAtomic(folder: string, name: string, value: unknown): Promise<void> {
  const temp = tempName(folder, name);
  await writeFile(temp, `${JSON.stringify(value)}\n`);
  await rename(temp, join(folder, name));
}

/**
 * Writes `name` whole only when it does not exist yet: the first writer wins, later ones get false.
 * A hard link fails on an existing name (also on NFS), unlike rename, which would replace it.
 */
export async function createOnce(folder: string, name: string, value: unknown): Promise<boolean> {
  const temp = tempName(folder, name);
  await writeFile(temp, `${JSON.stringify(value)}\n`);
  try {
    await link(temp, join(folder, name));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** The file's text, or undefined when it is not there (yet). */
export async function readText(folder: string, name: string): Promise<string | undefined> {
  try {
    return await readFile(join(folder, name), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The file's JSON, or undefined when it is not there (yet). */
export async function readJson(folder: string, name: string): Promise<unknown> {
  const text = await readText(folder, name);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

export function asAnnouncement(x: unknown): Announcement | undefined {
  if (!isRecord(x) || typeof x.shard !== 'string' || typeof x.atMs !== 'number') return undefined;
  return { shard: x.shard, atMs: x.atMs, who: typeof x.who === 'string' ? x.who : '' };
}

export function asStopNotice(x: unknown): StopNotice | undefined {
  if (!isRecord(x) || typeof x.shard !== 'string' || typeof x.reason !== 'string') return undefined;
  return {
    shard: x.shard,
    reason: x.reason,
    atMs: typeof x.atMs === 'number' ? x.atMs : 0,
    ...(typeof x.by === 'string' ? { by: x.by } : {}),
  };
}

/** Whether a heartbeat's text says its shard ended; text that is not a heartbeat says it did not. */
export function isDone(text: string): boolean {
  try {
    const x = JSON.parse(text) as unknown;
    return isRecord(x) && x.done === true;
  } catch {
    return false;
  }
}
