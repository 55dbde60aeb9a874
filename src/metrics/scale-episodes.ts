import type { WorkerSample } from './scaling-data.js';
import { readyWorkers } from './worker-sample.js';

/** How an episode of queued work beyond the ready workers ended. */
export type EpisodeEnd = 'scaled' | 'drained' | 'open';

/**
 * A stretch where jobs waited in the queue and there were more jobs (queued and in progress) than
 * workers able to take one (idle and running). It ends when the ready workers rise above what
 * they were when it began (`scaled`: its duration is the scale-up lag), when the queue empties
 * without that (`drained`), or not before the last sample (`open`).
 */
export interface ScaleEpisode {
  /** The first sample that showed it, wall clock (epoch ms). */
  atMs: number;
  end: EpisodeEnd;
  /** To the sample that ended it (the last sample when open). */
  durationMs: number;
  /** Ready workers when it began, and at the sample that ended it. */
  from: number;
  to: number;
}

/** Jobs a sample counted in the queue that call for workers (all of them, unless told otherwise). */
export type QueuedCalling = (s: WorkerSample) => number;

function waiting(s: WorkerSample, calling: number): boolean {
  return calling > 0 && calling + s.inProgress > readyWorkers(s);
}

/**
 * The episodes in samples sorted by time. A sample that ends one episode by scaling may begin the
 * next (a burst that outgrows each step of the scale-up), measured from that sample's workers.
 * Queued jobs are those that call for workers (`calling`): a stretch where only our lowPriority
 * jobs waited is no episode, since they do not trigger scaling.
 */
export function scaleEpisodes(
  samples: readonly WorkerSample[],
  calling: QueuedCalling = (s) => s.inQueue,
): ScaleEpisode[] {
  const out: ScaleEpisode[] = [];
  let open: { atMs: number; from: number } | undefined;
  for (const s of samples) {
    const ready = readyWorkers(s);
    const queued = calling(s);
    if (open && (ready > open.from || queued === 0)) {
      const end: EpisodeEnd = ready > open.from ? 'scaled' : 'drained';
      out.push({ atMs: open.atMs, end, durationMs: s.atMs - open.atMs, from: open.from, to: ready });
      open = undefined;
    }
    if (!open && waiting(s, queued)) open = { atMs: s.atMs, from: ready };
  }
  const last = samples.at(-1);
  if (open && last)
    out.push({
      atMs: open.atMs,
      end: 'open',
      durationMs: last.atMs - open.atMs,
      from: open.from,
      to: readyWorkers(last),
    });
  return out;
}
