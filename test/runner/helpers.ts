import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../../src/core/clock.js';
import type { JobStatus } from '../../src/core/job-status.js';
import { isFinalStatus, isJobStatus } from '../../src/core/job-status.js';
import type { DroppedRecord, ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import {
  startEmulatorInWorker,
  type EmulatorHandle,
  type EmulatorOptions,
} from '../../src/emulator/index.js';
import type { RunOptions, RunOutcome, Target } from '../../src/runner/run-options.js';
import { runScenario } from '../../src/runner/runner.js';
import { parseScenario } from '../../src/scenario/scenario-parser.js';
import type { Scenario } from '../../src/scenario/scenario.js';

/** A scenario written inline in a test (YAML), validated like a file. */
export function inlineScenario(yaml: string): Scenario {
  return parseScenario(yaml, 'inline.yaml');
}

/** The embedded emulator in its own thread, as `jobstorm run` starts it, on a free port. */
export async function emulatorTarget(
  options: EmulatorOptions = {},
): Promise<{ target: Target; emulator: EmulatorHandle }> {
  const emulator = await startEmulatorInWorker({ port: 0, coldStartMs: 0, ...options });
  return {
    emulator,
    target: {
      baseUrl: emulator.url,
      managementUrl: emulator.managementUrl,
      apiKey: emulator.apiKey,
      ownsEndpoint: true,
    },
  };
}

export interface Collected {
  outcome: RunOutcome;
  records: JobstormRecord[];
}

/** Runs a scenario in-process and keeps every record. */
export async function runCollecting(
  scenario: Scenario,
  target: Target,
  extra: Partial<RunOptions> = {},
): Promise<Collected> {
  const records: JobstormRecord[] = [];
  const outcome = await runScenario({
    scenario,
    target,
    runId: 'test',
    sampleHealth: false,
    drainMs: 2000,
    gracefulStopMs: 10_000,
    ...extra,
    // Real time unless the test hands its own clock (one shared with an in-process emulator).
    clock: extra.clock ?? systemClock,
    onRecord: (r) => {
      records.push(r);
      extra.onRecord?.(r);
    },
  });
  return { outcome, records };
}

export function exchanges(records: readonly JobstormRecord[]): ExchangeRecord[] {
  return records.filter((r): r is ExchangeRecord => r.type === 'exchange');
}

export function dropped(records: readonly JobstormRecord[]): DroppedRecord[] {
  return records.filter((r): r is DroppedRecord => r.type === 'dropped');
}

/** The first request of each flow iteration: one per started arrival (its first 429 attempt only). */
export function arrivalsOf(records: readonly JobstormRecord[]): ExchangeRecord[] {
  return exchanges(records).filter(
    (r) => r.step?.startsWith('1:') === true && (r.attempt === undefined || r.attempt === 1),
  );
}

/** Each job's statuses in the order the records saw them (answers that carried one). */
export function statusTimelines(records: readonly JobstormRecord[]): Map<string, JobStatus[]> {
  const byJob = new Map<string, JobStatus[]>();
  const sorted = exchanges(records).sort((a, b) => a.endAt - b.endAt);
  for (const r of sorted) {
    if (r.jobId === undefined || r.status !== 200) continue;
    const status = (r.body as { status?: unknown } | undefined)?.status;
    if (!isJobStatus(status)) continue;
    const list = byJob.get(r.jobId) ?? [];
    list.push(status);
    byJob.set(r.jobId, list);
  }
  return byJob;
}

export function lastIsFinal(timeline: readonly JobStatus[]): boolean {
  return isFinalStatus(timeline[timeline.length - 1]);
}

export function percentileOf(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
}

/** A bare loopback server with a handler of the test's choosing. */
export async function bareServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = await bareServer(() => undefined);
  const port = Number(new URL(s.url).port);
  await s.close();
  return port;
}
