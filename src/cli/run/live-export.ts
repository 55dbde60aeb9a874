import { LiveExports } from '../../export/live-exports.js';
import type { Scenario } from '../../scenario/scenario.js';
import { clockOf, type CliIo } from '../command.js';
import type { ExportSettings } from './export-settings.js';

export interface LiveExportContext {
  runId: string;
  scenario: Scenario;
  /** `--shard i/n`; records of `--workers` threads carry their own. */
  shard?: string;
  io: CliIo;
}

/** The run's live exports, started; undefined when the run has none. Warnings go to stderr. */
export function startLiveExports(settings: ExportSettings, ctx: LiveExportContext): LiveExports | undefined {
  if (settings.targets.length === 0) return undefined;
  const live = new LiveExports({
    targets: settings.targets,
    intervalMs: settings.intervalMs,
    runId: ctx.runId,
    scenario: ctx.scenario.name,
    tags: ctx.scenario.tags ?? {},
    ...(ctx.shard ? { shard: ctx.shard } : {}),
    onWarning: (message) => ctx.io.err(`jobstorm: warning: ${message}`),
    // The run's clock: its flushes come every interval of the run's time, not the machine's.
    clock: clockOf(ctx.io),
  });
  live.start();
  return live;
}
