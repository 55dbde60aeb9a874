import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { evidenceOf } from '../../src/check/evidence.js';
import { runCli } from '../../src/cli/cli.js';
import type { ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import type { ManualClock } from '../../src/core/manual-clock.js';
import type { Summary } from '../../src/report/summary.js';
import { runCliOnClock } from '../helpers/cli-on-clock.js';
import { captureIo } from '../helpers/cli-io.js';

/** One CLI run against a foreign target, every report file read back. */
export interface ForeignOutcome {
  code: number;
  summary: Summary;
  text: string;
  md: string;
  html: string;
  records: JobstormRecord[];
  stderr: string;
  /** Fired check ids, sorted. */
  fired: string[];
}

/**
 * Runs `scenario` through the CLI against `base` (the embedded emulator when empty). With `clock`
 * the run is in-process on that manual clock, driven (issue 46): the one a target server in this
 * thread reads, or any for the embedded emulator, which then runs on it too.
 */
export async function runForeign(
  base: string,
  scenario: string,
  args: string[] = [],
  env: Record<string, string> = { JOBSTORM_API_KEY: 'foreign-test-key' },
  clock?: ManualClock,
): Promise<ForeignOutcome> {
  const out = mkdtempSync(join(tmpdir(), 'jobstorm-foreign-'));
  const io = captureIo(env);
  // No base: the embedded emulator, the faithful reference.
  const target = base === '' ? [] : ['--target', base];
  const argv = ['run', scenario, ...target, '--out', out, '--record', ...args];
  const code = clock ? await runCliOnClock(argv, io, { clock }) : await runCli(argv, io);
  const read = (f: string): string => readFileSync(join(out, f), 'utf8');
  const summary = JSON.parse(read('summary.json')) as Summary;
  const records = read('records.ndjson')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JobstormRecord);
  return {
    code,
    summary,
    text: io.stdout.join('\n'),
    md: read('summary.md'),
    html: read('report.html'),
    records,
    stderr: io.stderr.join('\n'),
    fired: summary.violations.map((v) => v.id).sort(),
  };
}

export const exchanges = (o: ForeignOutcome): ExchangeRecord[] =>
  o.records.filter((r): r is ExchangeRecord => r.type === 'exchange');

/** Every example of every finding cites a record that was exchanged, unchanged. */
export function expectRealEvidence(o: Pick<ForeignOutcome, 'summary' | 'records'>): void {
  const bySeq = new Map(
    o.records.flatMap((r) => (r.type === 'exchange' || r.type === 'webhook' ? [[r.seq, r] as const] : [])),
  );
  for (const v of o.summary.violations) {
    for (const e of v.examples) {
      const seq = e.evidence.seq;
      expect(seq, `${v.id} cites no record`).toBeDefined();
      const r = bySeq.get(seq ?? -1);
      expect(r, `${v.id} cites seq ${String(seq)}, which is not in records.ndjson`).toBeDefined();
      if (r)
        expect({ ...e.evidence, timeline: undefined }).toEqual({ ...evidenceOf(r), timeline: undefined });
    }
  }
}
