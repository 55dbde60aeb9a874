/** One fault's proof run, with what the fault declares and what the faithful emulator did. */
export interface ExactProofRun {
  /** The fault's name, or a test-only fault's. */
  fault: string;
  /** Every check id the fault may make fire (its `mayTrip`). */
  mayTrip: readonly string[];
  /** The ids this run must show firing. */
  proves: readonly string[];
  /** Findings per id on the faulty emulator. */
  fired: ReadonlyMap<string, number>;
  /** Findings per id on the faithful emulator, same scenario and options. */
  faithful: ReadonlyMap<string, number>;
}

/**
 * What makes a fault proof inexact, one line each; none means the proof holds. A fault's proof
 * is exact when the ids it proves fire, nothing outside its declared set fires (an id that does is
 * an overlapping or misfiring check, or a fault that breaks more than it names), and the faithful
 * emulator fires nothing on the same scenario (else the finding is not the fault's).
 */
export function exactProofProblems(run: ExactProofRun): string[] {
  const problems: string[] = [];
  for (const id of run.proves) {
    if (!run.mayTrip.includes(id)) problems.push(`${id} is proved but not in ${run.fault}'s set`);
    if ((run.fired.get(id) ?? 0) === 0) problems.push(`${id} did not fire`);
  }
  for (const [id, n] of run.fired)
    if (!run.mayTrip.includes(id)) problems.push(`${id} fired ${String(n)}×, outside ${run.fault}'s set`);
  for (const [id, n] of run.faithful) problems.push(`${id} fired ${String(n)}× on the faithful emulator`);
  return problems;
}
