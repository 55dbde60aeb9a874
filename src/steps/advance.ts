import { RECORD_VERSION } from '../core/record.js';
import { PositiveDurationSchema, durationText } from '../scenario/field-schemas.js';
import type { StepRunner } from './iteration-state.js';
import { defineStep, type StepRules } from './step-kind.js';

export interface AdvanceStep {
  readonly kind: 'advance';
  readonly ms: number;
}

const AdvanceSchema = PositiveDurationSchema.describe(
  durationText("Advance the emulator's manual clock (needs emulator.clock: manual).", '1s'),
).transform((ms): AdvanceStep => ({ kind: 'advance', ms }));

const rules: StepRules = (_payload, at, flow) =>
  flow.manualClock ? [] : [{ path: at, message: 'advance needs emulator.clock: manual', atKey: true }];

/** Moves the embedded emulator's manual clock. */
const advanceClock: StepRunner<AdvanceStep> = async (step, it) => {
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
  it.worked();
  return true;
};

export const advance = defineStep({
  name: 'advance',
  example: '1s',
  payload: () => AdvanceSchema,
  rules,
  run: advanceClock,
});
