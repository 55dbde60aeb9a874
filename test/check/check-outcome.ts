import { type CheckerOptions, type CheckResult } from '../../src/check/checker.js';
import type { Check } from '../../src/check/check.js';
import type { JobstormRecord, RunRecord } from '../../src/core/record.js';
import { runRecord } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/** What a checker made of some records: findings and judged observations per id, and the messages. */
export interface Outcome {
  /** Findings per id (only ids that fired). */
  fired: Record<string, number>;
  /** Observations judged per id (only ids that judged any). */
  judged: Record<string, number>;
  /** The messages of one id's findings, in order. */
  messages(id: string): string[];
  result: CheckResult;
}

/** Feeds `records` in the order given to a checker of `run` (the default run record, changed by `run`). */
export function outcome(
  records: readonly JobstormRecord[],
  options: CheckerOptions & { run?: Partial<RunRecord> } = {},
): Outcome {
  const { run, ...rest } = options;
  const c = new FoldedChecker(runRecord(run), rest);
  for (const r of records) c.add(r);
  const result = c.finish();
  return {
    fired: Object.fromEntries(result.violations.map((g) => [g.id, g.count])),
    judged: Object.fromEntries(Object.entries(result.coverage).filter(([, n]) => n > 0)),
    messages: (id) => result.violations.find((g) => g.id === id)?.examples.map((e) => e.message) ?? [],
    result,
  };
}

/** One check family's outcome: findings of any id, its own ids' judged counts, every finding's message and cited seq. */
export interface FamilyOutcome {
  fired: Record<string, number>;
  /** Observations judged per id of the family (ids judged 0 times left out). */
  judged: Record<string, number>;
  messages: string[];
  /** The seq of the record each finding cites, in order (-1 for none). */
  cited: number[];
}

/** Feeds `records` in order to a checker of `run` that runs `check` alone. */
export function familyOutcome(
  records: readonly JobstormRecord[],
  check: Check,
  ids: readonly string[],
  run: RunRecord = runRecord(),
): FamilyOutcome {
  const c = new FoldedChecker(run, { checks: [check] });
  for (const r of records) c.add(r);
  const result = c.finish();
  const examples = result.violations.flatMap((g) => g.examples);
  return {
    fired: Object.fromEntries(result.violations.map((g) => [g.id, g.count])),
    judged: Object.fromEntries(ids.flatMap((id) => (result.coverage[id] ? [[id, result.coverage[id]]] : []))),
    messages: examples.map((v) => v.message),
    cited: examples.map((v) => v.evidence.seq ?? -1),
  };
}
