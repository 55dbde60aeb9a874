import { existsSync, mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { ExitCode } from '../../core/exit-code.js';
import type { LiveState } from '../../dashboard/index.js';
import { mergeSummaries } from '../../report/summary-merge.js';
import { readLiveFolder, writeWatchBeat, type LiveShard } from '../../session/barrier/live-file.js';
import { every, wallClockOf } from '../../session/barrier/wall-clock.js';
import { clockOf, type CliIo, type JobstormCommand } from '../command.js';
import { parseDashboardFlags, startDashboard, type DashboardSettings } from '../run/dashboard-flags.js';
import type { DashboardCommandArgs } from './dashboard-args.js';

function settle(args: DashboardCommandArgs): { folder: string; flags: DashboardSettings; created: boolean } {
  const issues: ConfigIssue[] = [];
  const folder = resolve(args.folder);
  // Not there yet: the watch may well start before the shards, which make the same folder.
  const created = !existsSync(folder);
  if (created) mkdirSync(folder, { recursive: true });
  else if (!statSync(folder).isDirectory())
    issues.push({ where: args.folder, message: 'is a file: give the --barrier folder the shards share' });
  const flags = parseDashboardFlags(
    { dashboard: args.port ?? '', ...(args.host !== undefined ? { 'dashboard-host': args.host } : {}) },
    issues,
    { port: '--port', host: '--host' },
  );
  if (issues.length > 0 || !flags) throw new ConfigError(issues);
  return { folder, flags, created };
}

/** The shards' live files merged, as one run: running until every shard of the run wrote its last. */
class ShardFolder {
  state: LiveState | undefined;
  shardsEnded = 0;
  count: number | undefined;
  private beat = 0;

  constructor(
    private readonly folder: string,
    private readonly clock: ReturnType<typeof wallClockOf>,
  ) {}

  get allEnded(): boolean {
    return this.count !== undefined && this.shardsEnded >= this.count;
  }

  /** Reads the folder; beats first when a page is open, so the shards write. */
  async poll(watched: boolean): Promise<void> {
    if (watched) await writeWatchBeat(this.folder, { beat: ++this.beat, atMs: this.clock.now() });
    const { shards, count } = await readLiveFolder(this.folder);
    this.count = count;
    this.shardsEnded = shards.filter((s) => s.done).length;
    if (shards.length > 0) this.state = { summary: merged(shards), running: !this.allEnded };
  }
}

/** Merged even when one shard wrote so far: the merge names the shards not heard from as missing. */
function merged(shards: readonly LiveShard[]): ReturnType<typeof mergeSummaries> {
  return mergeSummaries(
    shards.map((s) => s.summary),
    { names: shards.map((s) => `shard ${s.shard}`) },
  );
}

async function execute(args: DashboardCommandArgs, io: CliIo): Promise<ExitCode> {
  const { folder, flags, created } = settle(args);
  const clock = clockOf(io);
  const shards = new ShardFolder(folder, wallClockOf(clock));
  await shards.poll(false);
  const dashboard = await startDashboard(flags, io, `jobstorm shards of ${folder}`, () => shards.state);
  io.err(
    `jobstorm: watching the shards of ${folder}${created ? ' (made now: no shard came yet)' : ''}; Ctrl-C to stop`,
  );
  let ended = false;
  let warned = '';
  const stop = every(wallClockOf(clock), 1000, () => {
    if (ended) return;
    void shards.poll(dashboard.watching > 0).then(
      () => {
        if (ended || !shards.allEnded || !shards.state) return;
        ended = true;
        dashboard.finish(shards.state.summary);
        io.err(
          `jobstorm: all ${String(shards.count)} shards ended: the page shows their merged report; Ctrl-C to stop`,
        );
      },
      (err: unknown) => {
        // Said once, not each second: the same files give the same problem until they change.
        const text = `jobstorm: warning: reading ${folder}: ${(err as Error).message}`;
        if (text !== warned) io.err(text);
        warned = text;
      },
    );
  });
  await new Promise<void>((done) => {
    if (io.interrupt.aborted) done();
    else io.interrupt.addEventListener('abort', () => done(), { once: true });
  });
  stop();
  await dashboard.close();
  return ExitCode.Ok;
}

/** What `dashboard` does once its arguments parsed; loaded only when the command runs. */
export const dashboardAction: Pick<JobstormCommand<DashboardCommandArgs>, 'run'> = {
  run: execute,
};
