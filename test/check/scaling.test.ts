import { FAULT_LIST } from '../../src/emulator/faults/fault-list.js';
import { describe, expect, it } from 'vitest';
import { Checker } from '../../src/check/checker.js';
import { SCALING_IDS } from '../../src/check/checks/scaling-check.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { proofRun, type ProofResult } from './proof-run.js';
import { BURST_SCALING, BURST_SCALING_SHORT, SCALING_PROOFS } from './scaling-scenarios.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * The scaling.* checks against the emulator's scaling faults (issue 36): each fault makes its own
 * check fire and no other, the faithful emulator gives none while every scaling check judges, and
 * the saved records judged offline give the same findings.
 */

const scaling = (r: ProofResult): Record<string, number> =>
  Object.fromEntries(SCALING_IDS.map((id) => [id, r.coverage[id] ?? 0]));

function offline(records: readonly JobstormRecord[]): ReturnType<Checker['finish']> {
  const [run, ...rest] = JSON.parse(JSON.stringify(records)) as JobstormRecord[];
  if (run?.type !== 'run') throw new Error('first record is not the run record');
  const checker = new FoldedChecker(run);
  for (const r of rest) checker.add(r);
  return checker.finish();
}

// On a manual clock (proof-run.ts): the cold starts and idle timeouts pass in milliseconds, and one
// run at a time reads the same records on every machine.
describe('scaling checks', () => {
  describe('scenarios/burst-scaling.yaml', () => {
    it('passes against the faithful emulator with every scaling check exercised, in under a minute of its clock', async () => {
      const result = await proofRun(BURST_SCALING);
      expect(result.violations.map((g) => `${g.id}: ${g.examples[0]?.message ?? ''}`)).toEqual([]);
      for (const [id, n] of Object.entries(scaling(result))) expect(n, id).toBeGreaterThan(0);
      const run = result.records[0];
      expect(run?.type === 'run' ? run.scaling : undefined).toEqual({
        workersMin: 2,
        workersMax: 12,
        idleTimeoutMs: 4000,
        // The emulator's cold start (3 s) plus two /health samples.
        scaleUpWithinMs: 5000,
        source: 'emulator',
      });
    }, 120_000);
  });

  describe('each scaling fault makes its own check fire on burst-scaling (shortened), and only it', () => {
    it.each(SCALING_PROOFS.map((p) => [p.fault, p.ids] as const))(
      '%s → %s; offline the same',
      async (fault, ids) => {
        const result = await proofRun(BURST_SCALING_SHORT, { faults: [fault] });
        expect(result.violations.map((g) => g.id)).toEqual(ids);
        // Exact against the fault's declared set, as every other fault's proof is (faults.test.ts).
        const declared: readonly string[] = FAULT_LIST.find((f) => f.name === fault)?.mayTrip ?? [];
        expect(result.violations.map((g) => g.id).filter((id) => !declared.includes(id))).toEqual([]);
        const example = result.violations[0]?.examples[0];
        // The finding cites a /health read of this run.
        expect(example?.op).toBe('health');
        expect(
          result.records.some(
            (r) => r.type === 'exchange' && r.seq === example?.evidence.seq && r.op === 'health',
          ),
        ).toBe(true);
        const again = offline(result.records);
        expect(again.violations).toEqual(result.violations);
        expect(again.coverage).toEqual(result.coverage);
        expect(again.notes).toEqual(result.notes);
      },
      90_000,
    );

    it('the faithful emulator: no finding, every scaling check judged', async () => {
      const result = await proofRun(BURST_SCALING_SHORT);
      expect(result.violations.map((g) => `${g.id}: ${g.examples[0]?.message ?? ''}`)).toEqual([]);
      for (const [id, n] of Object.entries(scaling(result))) expect(n, id).toBeGreaterThan(0);
      expect(offline(result.records).coverage).toEqual(result.coverage);
    }, 90_000);
  });
});
