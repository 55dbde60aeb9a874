import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { type CheckResult } from '../../src/check/checker.js';
import type { OpenApiRules } from '../../src/check/openapi-rules.js';
import type { JobstormRecord } from '../../src/core/record.js';
import type { WebhookAnswers } from '../../src/runner/webhook-receiver.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * Saved record streams for the checks (DESIGN: "saved record streams for checks"): the records of
 * each live fault proof, and of the faithful run of each proof's scenario, as gzipped NDJSON in
 * test/check/streams/. `npm run streams:update` writes them and the manifest; saved-streams.test.ts
 * replays them through a fresh Checker, fast enough for the mutation run.
 */

export const STREAMS_DIR = new URL('./streams/', import.meta.url);
export const MANIFEST_FILE = new URL('manifest.json', STREAMS_DIR);

export interface SavedStream {
  /** File name in test/check/streams/. */
  file: string;
  /** The fault switched on (`name` or `name=value`); null for the faithful emulator. */
  fault: string | null;
  /** The scenario's name (proof-scenarios.ts, scaling-scenarios.ts). */
  scenario: string;
  webhookAnswers?: WebhookAnswers;
  /** Whether the checker judged with the management fixture's rules (MANAGEMENT_OPENAPI), as live. */
  openapi: boolean;
  /** The ids this proof must show firing (its row of the proof table); none for a faithful run. */
  proves: string[];
  /** For a fault's stream: the file of the faithful run of the same scenario and options. */
  faithful?: string;
  records: number;
  /** The checker's findings on replay, per id. */
  violations: Record<string, number>;
  /** The checker's coverage on replay: observations judged per id, zeros left out. */
  coverage: Record<string, number>;
}

export interface StreamManifest {
  streams: SavedStream[];
}

/** The stream's file name: fault (or `faithful`), scenario, and the webhook answer when one is set. */
export function streamFile(fault: string | null, scenario: string, hooks?: WebhookAnswers): string {
  const who = (fault ?? 'faithful').replaceAll('=', '_');
  return `${who}--${scenario}${hooks ? `--hooks-${String(hooks.status)}` : ''}.ndjson.gz`;
}

export function readManifest(): StreamManifest {
  return JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as StreamManifest;
}

export function readStream(file: string): JobstormRecord[] {
  const text = gunzipSync(readFileSync(new URL(file, STREAMS_DIR))).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JobstormRecord);
}

/** Feeds the records, in order, to a fresh Checker, as `jobstorm check` does with a records file. */
export function replay(records: readonly JobstormRecord[], openapi?: OpenApiRules): CheckResult {
  const [run, ...rest] = records;
  if (run?.type !== 'run') throw new Error('a saved stream starts with the run record');
  const checker = new FoldedChecker(run, openapi ? { openapi } : {});
  for (const r of rest) checker.add(r);
  return checker.finish();
}

/** What the manifest keeps of a result: findings per id, and coverage per id without the zeros. */
export function countsOf(result: CheckResult): Pick<SavedStream, 'violations' | 'coverage'> {
  return {
    violations: Object.fromEntries(result.violations.map((g) => [g.id, g.count])),
    coverage: Object.fromEntries(Object.entries(result.coverage).filter(([, n]) => n > 0)),
  };
}
