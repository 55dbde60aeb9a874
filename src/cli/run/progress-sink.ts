import type { ProgressSnapshot } from '../../runner/run-options.js';
import type { LiveView } from '../../session/session-options.js';
import type { CliIo } from '../command.js';
import { phaseAt, type PhasePlan } from './phase-plan.js';
import { progressLine } from './progress-line.js';

/** What the progress output needs of the terminal: a line redrawn in place, or plain lines. */
export type ProgressIo = Pick<CliIo, 'err' | 'isTty' | 'liveLine' | 'columns'>;

/**
 * Where each progress snapshot (about once a second) goes: on a terminal, one line redrawn in
 * place, one column short of the width so the terminal never wraps it; in a log (a pipe, CI), a
 * complete plain line each time, every field at its longest.
 */
export function progressSink(
  io: ProgressIo,
  plan: PhasePlan,
  showViolations: boolean,
): (snapshot: ProgressSnapshot, view: LiveView) => void {
  return (snapshot, view) => {
    const figures = {
      phase: phaseAt(plan, snapshot.elapsedMs),
      elapsedMs: snapshot.elapsedMs,
      totalMs: plan.totalMs,
      snapshot,
      jobs: view.jobs,
      latency: view.latency,
      ...(showViolations ? { violations: view.violations } : {}),
      failingThresholds: view.failingThresholds,
    };
    if (!io.isTty) {
      io.err(progressLine(figures));
      return;
    }
    const columns = io.columns?.();
    io.liveLine?.(progressLine(figures, columns === undefined ? undefined : Math.max(1, columns - 1)));
  };
}

/** Clears the live line before other output, so nothing is printed after half a progress line. */
export function clearLiveLine(io: ProgressIo): void {
  if (io.isTty) io.liveLine?.('');
}
