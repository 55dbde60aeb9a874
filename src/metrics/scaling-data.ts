/**
 * The serialized form of `ScalingTrack`: the run's `/health` samples and what its jobs waited,
 * from which every scaling figure is computed (scaling-figures.ts). Plain JSON and exact under
 * merge: samples are a union in time order, waits add per second. summary.json carries it under
 * `scaling`; docs/summary-format.md describes it.
 */
export interface WorkerSampleColumns {
  /** When the answer arrived, wall clock (epoch ms), ascending. */
  atMs: number[];
  idle: number[];
  running: number[];
  /** null where the sample had no `workers.initializing` (not every server sends it). */
  initializing: (number | null)[];
  throttled: (number | null)[];
  inQueue: number[];
  inProgress: number[];
}

export interface ScalingData {
  /** `/health` exchanges seen, answered or not: 0 means the run never asked. */
  asked: number;
  samples: WorkerSampleColumns;
  /**
   * The measured jobs' `delayTime`, spread over the wall-clock seconds it covered (from the
   * submission's send), as `[epoch second, µs]` in second order: what the cold-start share weighs.
   */
  delayUs: [number, number][];
  /** The latest accepted submission's answer, wall clock (epoch ms); null when none. */
  lastArrivalMs: number | null;
  /**
   * When each of our lowPriority jobs may have been queued, `[from, to]` wall clock (epoch ms), to
   * null when never seen leaving (QueueSpans): the queued jobs that call for no worker, left out of
   * the scale-up episodes as the scaling checks leave them out. Absent when the run sent none.
   */
  lowPriorityQueued?: [number, number | null][];
  /** The scenario's `scaling.pricePerWorkerSecond` and `currency`, when it gave them. */
  pricePerWorkerSecond?: number;
  currency?: string;
}

/** One `/health` sample; `initializing`/`throttled` are undefined when the server did not send them. */
export interface WorkerSample {
  atMs: number;
  idle: number;
  running: number;
  initializing: number | undefined;
  throttled: number | undefined;
  inQueue: number;
  inProgress: number;
}

/** The scenario's price for a worker-second, as the metrics carry it. */
export interface WorkerPrice {
  pricePerWorkerSecond: number;
  currency?: string;
}
