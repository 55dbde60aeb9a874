import type { ExportSummary, Percentiles, ThresholdResult } from '../report/summary.js';
import type { LittleCheck } from './little-law.js';
import type { StepCost } from './step-cost.js';
import type { QueueTrend } from './queue-trend.js';
import type { SearchMode, SearchStage } from './search-mode.js';

/**
 * capacity.json: the result of a capacity search, for people (capacity.md, capacity.html) and
 * scripts. Versioned like summary.json; times are ms since `startedAtMs` unless named otherwise.
 */
export const CAPACITY_VERSION = 1;

export interface CapacityStep {
  /** 1-based, in the order the steps ran. */
  index: number;
  stage: SearchStage;
  /** Arrivals per second asked of the scenario's flows. */
  offeredRate: number;
  /**
   * Jobs per second accepted over the measured window: below the offered rate when some flows
   * submit no job, or when submissions are refused (429).
   */
  submittedRate: number | null;
  /** Jobs per second the endpoint finished over the measured window. */
  achievedRate: number | null;
  /** health: from the /health completed + failed counters; client: from the final statuses seen. */
  achievedFrom: 'health' | 'client' | null;
  passed: boolean;
  /** Why the step failed (empty when it passed). */
  reasons: string[];
  /** Stopped before its planned end: unbounded queue or interrupted. */
  stoppedEarly: boolean;
  startMs: number;
  /** The measured window (after the warm-up), ms. */
  measuredMs: number;
  /** Arrivals of the whole step, warm-up included; the counts below are of the measured window. */
  arrivals: number;
  /** Arrivals dropped at target.maxInFlight. */
  dropped: number;
  /** Jobs accepted by /run or /runsync. */
  submitted: number;
  /** Of those, jobs seen in a final state. */
  finished: number;
  /** Of those, jobs not seen final when the step ended. */
  unfinished: number;
  requests: number;
  count429: number;
  /** 429s / requests in the window; null without requests. */
  rate429: number | null;
  e2e: Percentiles;
  delayTime: Percentiles;
  executionTime: Percentiles;
  queue: QueueTrend;
  /** Workers running, from /health in the window. */
  workers: { min: number; max: number; mean: number } | null;
  little: LittleCheck | null;
  thresholds: ThresholdResult[];
  /**
   * Present when jobstorm itself was the bottleneck during the measured window (the generator
   * watch): how long, and whether it was starved of CPU rather than saturated.
   */
  generatorLimited?: { durationMs: number; starved: boolean };
  /** Workers and their cost over the measured window (absent in reports written before it was kept). */
  cost?: StepCost;
}

/** One /health sample, for the workers-over-time chart. */
export interface HealthPoint {
  atMs: number;
  step: number;
  running: number;
  idle: number;
  inQueue: number;
  inProgress: number;
}

export interface CapacityReport {
  version: typeof CAPACITY_VERSION;
  kind: 'jobstorm-capacity';
  runId: string;
  scenario: string;
  /** Base URL, never with credentials. */
  target: string;
  /** Wall clock (epoch ms) of the search's start. */
  startedAtMs: number;
  durationMs: number;
  mode: SearchMode;
  plan: {
    start: number;
    factor: number | null;
    increment: number | null;
    max: number;
    stepDurationMs: number;
    warmupMs: number;
  };
  slo: string[];
  /**
   * found: a step passed and a higher one failed. at-least: every step up to `max` passed, so the
   * capacity is at least that. none: the first step already failed. unknown: the search could not
   * run (target unreachable) or was interrupted before any verdict.
   */
  verdict: 'found' | 'at-least' | 'none' | 'unknown';
  /** Highest sustainable rate (arrivals per second): the last passing step. */
  capacity: number | null;
  /** The true capacity lies between these: the last passing and the first failing step. */
  confidence: { lastPassing: number | null; firstFailing: number | null };
  steps: CapacityStep[];
  health: HealthPoint[];
  targetUnreachable: boolean;
  interrupted: boolean;
  /**
   * The rate of the step where jobstorm itself was the bottleneck and the step failed: the search
   * stopped there, since that failure may be jobstorm's, not the target's.
   */
  generatorLimitedAt?: number;
  /** How each live metrics output (`--export`) fared over the whole search. */
  exports?: ExportSummary[];
}
