import type { ScalingData, WorkerSample } from './scaling-data.js';
import { queuedCallingForWorkers, spanIndex } from '../fold/queue-spans.js';
import { scaleEpisodes, type EpisodeEnd, type QueuedCalling, type ScaleEpisode } from './scale-episodes.js';
import { billedWorkers, samplesFromColumns } from './worker-sample.js';
import { initSpan, initUpTo } from './initializing-time.js';

/** Every scaling figure by name: what thresholds and reports call them. */
export type ScalingFigureName =
  | 'scaleUpLag'
  | 'drainTime'
  | 'coldStartShare'
  | 'peakWorkers'
  | 'meanWorkers'
  | 'workerSeconds'
  | 'cost'
  | 'costPer1kJobs';

/** An episode as a report shows it: `at` in ms from the run's start. */
export interface EpisodeFigure {
  at: number;
  end: EpisodeEnd;
  durationMs: number;
  from: number;
  to: number;
}

/**
 * The scaling figures of a run. A figure that could not be measured is null, and `notMeasured`
 * says why (no `/health`, no `initializing` field, no price...): never a 0 that was not seen.
 */
export interface ScalingFigures {
  samples: number;
  episodes: EpisodeFigure[];
  /** Durations of the episodes that ended by scaling, ascending (the scale-up lags), ms. */
  scaleUpLagMs: number[];
  /** Last arrival → first sample showing no job queued or in progress, ms. */
  drainMs: number | null;
  /** Share of the jobs' delayTime spent while workers were initializing (0..1). */
  coldStartShare: number | null;
  /** The delayTime (ms, all jobs together) spent while workers were initializing. */
  coldStartMs: number | null;
  peakWorkers: number | null;
  meanWorkers: number | null;
  /** idle + running + initializing workers, integrated from the first sample to the last. */
  workerSeconds: number | null;
  cost: number | null;
  costPer1kJobs: number | null;
  currency?: string;
  notMeasured: Partial<Record<ScalingFigureName, string>>;
}

/** Ready-made words for the most common reason. */
export const NO_HEALTH = 'the run took no /health sample with worker counts';

/** The delay weighed by the share of each second the workers spent initializing, within the sampled span. */
function coldStart(
  data: ScalingData,
  samples: readonly WorkerSample[],
): { share: number; ms: number } | string {
  if (samples.some((s) => s.initializing === undefined))
    return "the target's /health has no workers.initializing";
  const span = initSpan(samples);
  const first = samples[0]?.atMs ?? 0;
  const last = samples.at(-1)?.atMs ?? 0;
  let weighed = 0;
  let total = 0;
  for (const [sec, us] of data.delayUs) {
    const from = Math.max(first, sec * 1000);
    const to = Math.min(last, sec * 1000 + 1000);
    if (to <= from) continue;
    total += (us * (to - from)) / 1000;
    weighed += (us * (initUpTo(span, to) - initUpTo(span, from))) / 1000;
  }
  if (total === 0) return 'no job waited in the queue while /health was sampled';
  return { share: Math.min(1, Math.max(0, weighed / total)), ms: weighed / 1000 };
}

function drain(data: ScalingData, samples: readonly WorkerSample[]): number | string {
  const arrival = data.lastArrivalMs;
  if (arrival === null) return 'no job was submitted';
  const after = samples.filter((s) => s.atMs >= arrival);
  if (after.length === 0) return 'no /health sample after the last arrival';
  const done = after.find((s) => s.inQueue === 0 && s.inProgress === 0);
  if (done) return done.atMs - arrival;
  const seconds = (((after.at(-1)?.atMs ?? arrival) - arrival) / 1000).toFixed(1);
  return `jobs were still queued or in progress ${seconds} s after the last arrival, when sampling ended`;
}

function workerSeconds(samples: readonly WorkerSample[]): number {
  let ms = 0;
  for (let i = 1; i < samples.length; i++) {
    const [prev, cur] = [samples[i - 1] as WorkerSample, samples[i] as WorkerSample];
    ms += billedWorkers(prev) * (cur.atMs - prev.atMs);
  }
  return ms / 1000;
}

function lagReason(episodes: readonly ScaleEpisode[]): string {
  if (episodes.length === 0) return 'queued work never outnumbered the ready workers';
  const drained = episodes.filter((e) => e.end === 'drained').length;
  const open = episodes.filter((e) => e.end === 'open').length;
  return `no worker was added in ${String(episodes.length)} episodes of queued work (${String(drained)} drained, ${String(open)} open at the end)`;
}

/** Per sample, the queued jobs that call for workers: those counted, less our lowPriority ones queued then. */
function queuedCalling(data: ScalingData): QueuedCalling {
  const spans = data.lowPriorityQueued ?? [];
  if (spans.length === 0) return (s) => s.inQueue;
  const low = spanIndex(
    spans.map(([from]) => from),
    spans.map(([, to]) => to ?? Infinity),
  );
  return (s) => queuedCallingForWorkers(s.inQueue, low, s.atMs, s.atMs);
}

export interface FigureInput {
  /** The run's start (epoch ms): episodes are given from it. */
  originMs: number;
  /** Completed jobs, for the cost per 1,000. */
  completed: number;
}

/** The scaling figures of the data: a pure function of it, so merged data gives merged figures. */
export function scalingFigures(data: ScalingData, input: FigureInput): ScalingFigures {
  const samples = samplesFromColumns(data.samples);
  const episodes = scaleEpisodes(samples, queuedCalling(data));
  const notMeasured: ScalingFigures['notMeasured'] = {};
  const lags = episodes.filter((e) => e.end === 'scaled').map((e) => e.durationMs);
  const out: ScalingFigures = {
    samples: samples.length,
    episodes: episodes.map(({ atMs, ...e }) => ({ at: atMs - input.originMs, ...e })),
    scaleUpLagMs: lags.sort((a, b) => a - b),
    drainMs: null,
    coldStartShare: null,
    coldStartMs: null,
    peakWorkers: null,
    meanWorkers: null,
    workerSeconds: null,
    cost: null,
    costPer1kJobs: null,
    ...(data.currency === undefined ? {} : { currency: data.currency }),
    notMeasured,
  };
  if (samples.length === 0) {
    for (const k of FIGURE_NAMES) notMeasured[k] = NO_HEALTH;
    return out;
  }
  if (lags.length === 0) notMeasured.scaleUpLag = lagReason(episodes);
  const drained = drain(data, samples);
  if (typeof drained === 'number') out.drainMs = drained;
  else notMeasured.drainTime = drained;
  const cold = coldStart(data, samples);
  if (typeof cold === 'string') notMeasured.coldStartShare = cold;
  else [out.coldStartShare, out.coldStartMs] = [cold.share, cold.ms];
  out.peakWorkers = samples.reduce((n, s) => Math.max(n, billedWorkers(s)), 0);
  costs(out, samples, data, input.completed);
  return out;
}

/** Worker-seconds, mean workers and what they cost. */
function costs(
  out: ScalingFigures,
  samples: readonly WorkerSample[],
  data: ScalingData,
  completed: number,
): void {
  const spanMs = (samples.at(-1)?.atMs ?? 0) - (samples[0]?.atMs ?? 0);
  const nm = out.notMeasured;
  if (spanMs <= 0) {
    const why = 'one /health sample: no time to integrate over';
    [nm.workerSeconds, nm.meanWorkers, nm.cost, nm.costPer1kJobs] = [why, why, why, why];
    return;
  }
  const ws = workerSeconds(samples);
  out.workerSeconds = ws;
  out.meanWorkers = ws / (spanMs / 1000);
  const price = data.pricePerWorkerSecond;
  if (price === undefined) {
    const why = 'no scaling.pricePerWorkerSecond in the scenario';
    [nm.cost, nm.costPer1kJobs] = [why, why];
    return;
  }
  out.cost = ws * price;
  if (completed > 0) out.costPer1kJobs = (out.cost / completed) * 1000;
  else nm.costPer1kJobs = 'no job completed';
}

export const FIGURE_NAMES: readonly ScalingFigureName[] = [
  'scaleUpLag',
  'drainTime',
  'coldStartShare',
  'peakWorkers',
  'meanWorkers',
  'workerSeconds',
  'cost',
  'costPer1kJobs',
];
