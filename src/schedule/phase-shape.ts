/*
 * The phases a schedule understands. The scenario's normalized phases have exactly these shapes
 * (plus a name), so the runner passes `scenario.phases` straight in; schedule/ does not import
 * scenario/ (DESIGN "Layout"), hence the restatement as structural types.
 */

/** Constant rate (arrivals per second) for a duration. */
export interface ConstantShape {
  readonly kind: 'constant';
  readonly durationMs: number;
  readonly rate: number;
}

/** Linear ramp of the rate from `from` to `to` per second over the duration. */
export interface RampShape {
  readonly kind: 'ramp';
  readonly durationMs: number;
  readonly from: number;
  readonly to: number;
}

/** `count` arrivals at `rate` per second, or all at the phase start without a rate. */
export interface CountShape {
  readonly kind: 'count';
  readonly count: number;
  readonly rate?: number;
}

/** Closed model: no scheduled arrivals; the runner's virtual users fill the window. */
export interface VusShape {
  readonly kind: 'vus';
  readonly durationMs: number;
  readonly vus: number;
}

/**
 * A replayed trace: its rows come through `ScheduleOptions.traces` (this layer reads no file),
 * played `timeScale` times as fast, `loops` times over.
 */
export interface TraceShape {
  readonly kind: 'trace';
  readonly timeScale: number;
  readonly loops: number;
}

export type OpenShape = ConstantShape | RampShape | CountShape;
export type PhaseShape = OpenShape | VusShape | TraceShape;
