import { z } from 'zod';
import { LIMITS } from '../../contracts/queue/limits.js';
import type { Clock } from '../core/clock.js';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { FaultsInputSchema, parseFaults, type FaultName } from './faults.js';
import { WorkerProcessSchema, type WorkerProcess } from './external/worker-process.js';
import {
  ProfileInputSchema,
  resolveProfile,
  type HandlerProfile,
  type HandlerProfileInput,
} from './profile.js';

function isClock(v: unknown): v is Clock {
  const c = v as Partial<Clock> | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    typeof c.now === 'function' &&
    typeof c.schedule === 'function' &&
    typeof c.sleep === 'function'
  );
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const idList = (what: string) =>
  z
    .array(z.string().regex(ID, `${what} ids are 1-128 letters, digits, '_', '.' or '-'`))
    .min(1)
    .refine((ids) => new Set(ids).size === ids.length, `${what} ids must be unique`);

/** Most simulated workers of one endpoint: each is an object and timers, so the count is bounded. */
export const MAX_WORKERS = 10_000;

/** Default stall timeout of a request body: slow links still send a packet every few seconds. */
export const BODY_TIMEOUT_MS = 5000;

/** Public models served at `/v2/<model>/runsync` (SPEC "What the service does" 3). */
export const DEFAULT_PUBLIC_MODELS = ['qwen3-32b-awq', 'flux-1-schnell', 'whisper-v3-large'];

/** RUNPOD_PING_INTERVAL handed to real workers unless set: a worker is dead after 5 of them. */
export const DEFAULT_WORKER_PING_INTERVAL_MS = 2000;

export const EmulatorOptionsSchema = z
  .strictObject({
    host: z.string().min(1).default('127.0.0.1'),
    /** 0 picks a free port. */
    port: z.number().int().min(0).max(65535).default(0),
    /** The one key every request must carry. */
    apiKey: z
      .string()
      .min(1)
      .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
      .default('jobstorm-local-key'),
    /** Endpoint ids served from the start; the first is the handle's `url`. */
    endpoints: idList('endpoint').default(['jobstorm']),
    pods: idList('pod').default(['jobstorm-pod']),
    models: idList('model').default(DEFAULT_PUBLIC_MODELS),
    workersMin: z.number().int().min(0).max(MAX_WORKERS).default(1),
    workersMax: z.number().int().min(1).max(MAX_WORKERS).default(10),
    /** Dynamic rate limit: effective limit = max(base, running workers × this). */
    requestsPerWorker: z.number().int().min(0).default(10),
    /** Seconds a worker stays idle before it stops (the REST v1 field of the same name is seconds). */
    idleTimeout: z.number().positive().max(3600).default(5),
    coldStartMs: z.number().int().min(0).max(600_000).default(250),
    /** executionTimeout of jobs that do not set one. */
    executionTimeoutMs: z
      .number()
      .int()
      .min(LIMITS.executionTimeout.min)
      .max(LIMITS.executionTimeout.max)
      .default(LIMITS.executionTimeout.default),
    profile: ProfileInputSchema.default('default'),
    clock: z
      .union([z.enum(['real', 'manual']), z.custom<Clock>(isClock, 'a Clock (now, sleep, schedule)')])
      .default('real'),
    faults: FaultsInputSchema.default([]),
    streamShape: z.enum(['envelope', 'array']).default('envelope'),
    seed: z.number().int().default(1),
    /** A request body that sends no byte for this long is answered 408 and its connection closed. */
    bodyTimeoutMs: z.number().int().min(50).max(600_000).default(BODY_TIMEOUT_MS),
    /** Endpoints whose jobs only real workers take, through the worker protocol. */
    externalWorkers: z.boolean().default(false),
    /** Longest a worker's take or stop long-poll is held before 204 (the worker gives up at 90 s). */
    workerHoldMs: z.number().int().min(10).max(85_000).default(30_000),
    /** RUNPOD_PING_INTERVAL handed to workers (the worker's heartbeat crashes below 1000). */
    workerPingIntervalMs: z.number().int().min(1000).max(600_000).default(DEFAULT_WORKER_PING_INTERVAL_MS),
    /** A real worker with no heartbeat or request for this long is dead (default 5 ping intervals). */
    workerDeadAfterMs: z.number().int().min(100).max(3_600_000).optional(),
    /** Real worker processes the autoscaler starts and stops (needs externalWorkers). */
    workerProcess: WorkerProcessSchema.optional(),
  })
  .refine((o) => o.workersMin <= o.workersMax, {
    path: ['workersMin'],
    message: 'workersMin must not exceed workersMax',
  })
  .refine((o) => o.workerProcess === undefined || o.externalWorkers, {
    path: ['workerProcess'],
    message: 'workerProcess needs externalWorkers: true',
  });

export type EmulatorOptions = z.input<typeof EmulatorOptionsSchema>;

export interface EmulatorConfig {
  host: string;
  port: number;
  apiKey: string;
  endpoints: string[];
  pods: string[];
  models: string[];
  workersMin: number;
  workersMax: number;
  requestsPerWorker: number;
  idleTimeoutMs: number;
  coldStartMs: number;
  executionTimeoutMs: number;
  profile: HandlerProfile;
  clock: 'real' | 'manual' | Clock;
  faults: [FaultName, number][];
  streamShape: 'envelope' | 'array';
  seed: number;
  bodyTimeoutMs: number;
  externalWorkers: boolean;
  workerHoldMs: number;
  workerPingIntervalMs: number;
  workerDeadAfterMs: number;
  workerProcess: WorkerProcess | undefined;
}

/** Validates once, reporting every problem at once (DESIGN rule 5). */
export function resolveOptions(options: EmulatorOptions = {}): EmulatorConfig {
  const parsed = EmulatorOptionsSchema.safeParse(options);
  const issues: ConfigIssue[] = parsed.success
    ? []
    : parsed.error.issues.map((i) => ({
        where: i.path.length > 0 ? i.path.map(String).join('.') : 'options',
        message: i.message,
      }));
  // Checks zod would skip once another field failed, so the user sees them in the same pass.
  const raw = options as { workersMin?: unknown; workersMax?: unknown; faults?: unknown };
  if (
    !parsed.success &&
    typeof raw.workersMin === 'number' &&
    typeof raw.workersMax === 'number' &&
    raw.workersMin > raw.workersMax
  ) {
    if (!issues.some((i) => i.where === 'workersMin'))
      issues.push({ where: 'workersMin', message: 'workersMin must not exceed workersMax' });
  }
  const faultsInput = FaultsInputSchema.safeParse(raw.faults ?? []);
  const faults = faultsInput.success ? parseFaults(faultsInput.data, 'faults') : { faults: [], issues: [] };
  issues.push(...faults.issues);
  if (!parsed.success || issues.length > 0) throw new ConfigError(issues);
  const o = parsed.data;
  return {
    host: o.host,
    port: o.port,
    apiKey: o.apiKey,
    endpoints: o.endpoints,
    pods: o.pods,
    models: o.models,
    workersMin: o.workersMin,
    workersMax: o.workersMax,
    requestsPerWorker: o.requestsPerWorker,
    idleTimeoutMs: Math.round(o.idleTimeout * 1000),
    coldStartMs: o.coldStartMs,
    executionTimeoutMs: o.executionTimeoutMs,
    profile: resolveProfile(o.profile),
    clock: o.clock,
    faults: faults.faults,
    streamShape: o.streamShape,
    seed: o.seed,
    bodyTimeoutMs: o.bodyTimeoutMs,
    externalWorkers: o.externalWorkers,
    workerHoldMs: o.workerHoldMs,
    workerPingIntervalMs: o.workerPingIntervalMs,
    workerDeadAfterMs: o.workerDeadAfterMs ?? 5 * o.workerPingIntervalMs,
    workerProcess: o.workerProcess,
  };
}

export type { HandlerProfileInput };
