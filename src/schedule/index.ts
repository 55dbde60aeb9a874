export {
  arrivalProcess,
  arrivalProcessNames,
  poissonProcess,
  registerArrivalProcess,
  uniformProcess,
  type ArrivalProcess,
  type PointSequence,
} from './arrival-process.js';
export {
  arrivalSchedule,
  ArrivalSchedule,
  type Arrival,
  type Pace,
  type PhaseWindow,
  type ScheduleOptions,
} from './arrival-schedule.js';
export type { ConstantShape, CountShape, OpenShape, PhaseShape, RampShape, VusShape } from './phase-shape.js';
export { deriveSeed, mulberry32 } from './prng.js';
export { rateCurve, type RateCurve } from './rate-curve.js';
export { assertShard, parseShard, type Shard } from './shard.js';
