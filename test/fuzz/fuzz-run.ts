import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FuzzReport } from '../../src/fuzz/fuzz-report.js';
import type { ManualClock } from '../../src/core/manual-clock.js';
import type { Summary } from '../../src/report/summary.js';
import { runCliOnClock } from '../helpers/cli-on-clock.js';
import { captureIo, type CapturedIo } from '../helpers/cli-io.js';

/** One `jobstorm fuzz` through the CLI, in-process on a manual clock, its report read back. */
export interface FuzzOutcome {
  code: number;
  out: string;
  report: FuzzReport;
  md: string;
  io: CapturedIo;
}

/** Generous bounds: a fuzz is thousands of runs, each many clock moves. */
const DRIVER = { maxSteps: 50_000_000, maxRealMs: 600_000 };

export async function fuzzCli(
  args: string[],
  o: {
    clock?: ManualClock;
    env?: Record<string, string>;
    onClock?: (c: ManualClock) => void;
    onIo?: (io: CapturedIo) => void;
  } = {},
): Promise<FuzzOutcome> {
  const out = mkdtempSync(join(tmpdir(), 'jobstorm-fuzz-test-'));
  const io = captureIo(o.env ?? {});
  o.onIo?.(io);
  const code = await runCliOnClock(['fuzz', '--out', out, '--quiet', ...args], io, {
    driver: DRIVER,
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.onClock ? { onClock: o.onClock } : {}),
  });
  const read = (f: string): string => readFileSync(join(out, f), 'utf8');
  return { code, out, report: JSON.parse(read('fuzz.json')) as FuzzReport, md: read('fuzz.md'), io };
}

/** `jobstorm run` of a finding's repro.yaml, on a manual clock: the ids its summary reports. */
export async function runRepro(
  file: string,
  args: string[] = [],
  clock?: ManualClock,
): Promise<{ code: number; fired: string[] }> {
  const out = mkdtempSync(join(tmpdir(), 'jobstorm-repro-'));
  const io = captureIo({ JOBSTORM_API_KEY: 'foreign-test-key' });
  const code = await runCliOnClock(['run', file, '--out', out, '--quiet', ...args], io, {
    driver: DRIVER,
    ...(clock ? { clock } : {}),
  });
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
  return { code, fired: summary.violations.filter((v) => v.severity === 'error').map((v) => v.id) };
}
