import { RECORD_VERSION } from '../../core/record.js';
import type { AdvanceStep, LoopStep, SleepStep } from '../../scenario/scenario.js';
import type { StepRunner } from './iteration-state.js';

/** Think time, uniform in [minMs, maxMs]. */
export const sleep: StepRunner<SleepStep> = (step, it) => {
  const ms = step.minMs + (step.maxMs - step.minMs) * it.ctx.random();
  // Think time is not latency: the next request is meant to start when the sleep ends.
  it.intendedAt = it.ctx.clock.now() + ms;
  return it.sleepUntil(it.intendedAt);
};

/** Moves the embedded emulator's manual clock. */
export const advance: StepRunner<AdvanceStep> = async (step, it) => {
  const { ctx } = it;
  if (!ctx.emulator) throw new Error('an advance step needs the embedded emulator with a manual clock');
  // Recorded before the move: what the move sets off (deliveries, expiries) then lands after it.
  ctx.emit({
    v: RECORD_VERSION,
    type: 'clock',
    seq: ctx.nextSeq(),
    at: ctx.clock.now(),
    advancedMs: step.ms,
  });
  await ctx.emulator.advance(step.ms);
  it.intendedAt = ctx.clock.now();
  return true;
};

/** Runs its steps `times` times in the same iteration (same job). */
export const loop: StepRunner<LoopStep> = async (step, it) => {
  for (let i = 0; i < step.times; i++) {
    if (!(await it.steps(step.steps))) return false;
  }
  return true;
};
