import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { EpochClock } from '../../core/clock.js';
import { ConfigError } from '../../core/config-error.js';
import type { ShardSpec } from '../../runner/run-options.js';
import { announcementFile } from '../../session/barrier/barrier-files.js';
import type { StartTogether } from '../../session/barrier/meeting.js';
import { ShardBarrier } from '../../session/barrier/shard-barrier.js';
import { StartInstant } from '../../session/barrier/start-instant.js';
import type { TogetherFlag } from './together-flags.js';

/**
 * The run's side of --barrier and --start-at. A shard that already came to the barrier is refused
 * before anything is sent (an engine that re-ran it would send its share twice).
 */
export function startTogether(
  flag: TogetherFlag | undefined,
  shard: ShardSpec | undefined,
  clock: EpochClock,
): StartTogether | undefined {
  if (!flag) return undefined;
  if (flag.kind === 'start-at') return new StartInstant(flag.atMs, clock);
  const s = shard ?? { index: 1, count: 1 };
  if (existsSync(join(flag.folder, announcementFile(s.index, s.count))))
    throw new ConfigError([
      {
        where: '--barrier',
        message: `shard ${String(s.index)}/${String(s.count)} already came to ${flag.folder}: a shard runs once (the engine must not re-run it); give each run its own barrier folder`,
      },
    ]);
  return new ShardBarrier({
    folder: flag.folder,
    shard: s,
    timeoutMs: flag.timeoutMs,
    clock,
    who: `${hostname()} pid ${String(process.pid)}`,
  });
}
