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
export type {
  ConstantShape,
  CountShape,
  OpenShape,
  PhaseShape,
  RampShape,
  TraceShape,
  VusShape,
} from './phase-shape.js';
export {
  TraceCursor,
  type TraceArrivalRow,
  type TracePoint,
  type TraceTimes,
  type TraceTimesOf,
} from './trace-times.js';
export { deriveSeed, mulberry32 } from './prng.js';
export { rateCurve, type RateCurve } from './rate-curve.js';
export { assertShard, parseShard, type Shard } from './shard.js';
