import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG } from '../../src/check/catalog.js';
import { FAULT_LIST } from '../../src/emulator/faults/fault-list.js';
import { fuzzCli, runRepro } from './fuzz-run.js';

/*
 * Issue 50, proven: against the embedded emulator with each fault that breaks a job's life, `jobstorm
 * fuzz` finds that fault's check within a budget of 400 sequences, shrinks it to a few calls and
 * writes a scenario that shows it again under `jobstorm run`; and it reports nothing the fault
 * cannot cause (every finding is one of the ids the fault may trip). Each fuzz runs on a manual
 * clock, so a ttl, an executionTimeout or a webhook's 30 s wait pass in milliseconds.
 */

/** The faults that break a job's life, each found within the budget from seed 1. */
const LIFECYCLE_FAULTS = [
  'lose-jobs',
  'cancel-ignored',
  'backwards-status',
  'backwards-queue',
  'spurious-cancel',
  'retry-any',
  'ttl-ignored',
  'purge-running',
  'timeout-ignored',
  'timeout-early',
  'purge-miscount',
  'stream-after-final',
  'stream-duplicate',
  'no-webhook',
  'webhook-wrong-status',
] as const;

/**
 * The budget: 400 sequences from seed 1, or more for a fault that needs a rare sequence (a 15 s job
 * with a 5 s executionTimeout, read past its end). Not stopped at the first finding: a fault may
 * trip another rule first (purge-running miscounts the purge, too). The default 200 shrinking runs,
 * or 500 for purge-running, whose finding needs a running job, a purge and a read after it.
 */
const budget = (fault: string): string[] => [
  '--seed',
  '1',
  '--sequences',
  fault === 'timeout-ignored' ? '2000' : '400',
  ...(fault === 'purge-running' ? ['--shrink-runs', '500'] : []),
];

/** The ids a fault's own test proves (CHECK_CATALOG's provenBy). */
const provenBy = (fault: string): string[] => CHECK_CATALOG.filter((c) => c.provenBy === fault).map((c) => c.id);

describe.each(LIFECYCLE_FAULTS)('jobstorm fuzz --fault %s', (fault) => {
  it("finds the fault's check, shrinks it to a few calls, and its repro.yaml shows it again", async () => {
    const { code, report, out, io } = await fuzzCli([...budget(fault), '--fault', fault]);
    expect(code).toBe(1);
    expect(report.verdict).toBe('failed');
    const own = provenBy(fault);
    const found = report.findings.find((f) => own.includes(f.id));
    expect(found, `${fault}: found ${report.findings.map((f) => f.id).join(', ')}; expected one of ${own.join(', ')}`).toBeDefined();
    if (!found) return;
    // Nothing false: every finding is a rule this fault breaks.
    const mayTrip: readonly string[] = FAULT_LIST.find((f) => f.name === fault)?.mayTrip ?? [];
    for (const f of report.findings) expect(mayTrip).toContain(f.id);
    expect(found.reproduced).toBe(true);
    expect(found.after.calls).toBeLessThanOrEqual(found.before.calls);
    expect(found.after.calls).toBeLessThanOrEqual(12);
    expect(found.examples.length).toBeGreaterThan(0);
    expect(io.stdout.join('\n')).toContain(`✗ ${found.id}`);
    // The written scenario reproduces it: the same check fires under jobstorm run.
    const repro = await runRepro(join(out, found.files.scenario));
    expect(repro.code).toBe(1);
    expect(repro.fired).toContain(found.id);
  }, 300_000);
});
