import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { z } from 'zod';
import type { PhaseSchema } from './phase-schema.js';
import type { ScenarioOutput } from './scenario-schema.js';
import type { DataFeed, Flow, Phase, Scenario, ScenarioChecks } from './scenario.js';
import type { WorkerSpec } from './worker-schema.js';
import { normalizeScaling } from './scaling-schema.js';
import type { KnownDeviations, SkippedCheck } from '../core/known-deviation.js';

/*
 * From the schema's output (already validated, cross-field rules included) to the `Scenario` the
 * runner reads. Anything impossible here means validation let it through: a programmer error.
 * Steps come out of the schema normalized already: each kind's schema transforms its own payload.
 */

type PhaseOutput = z.output<typeof PhaseSchema>;

/** A file the scenario names (a data feed, a trace): relative to the scenario file, or absolute. */
export function fileBesideScenario(file: string, source: string): string {
  return resolve(isAbsolute(file) ? file : join(dirname(source), file));
}

function normalizeReplay(
  replay: NonNullable<PhaseOutput['replay']>,
  name: string | undefined,
  source: string,
): Phase {
  const loops = replay.loop === true ? 2 : replay.loop === false ? 1 : replay.loop;
  return {
    kind: 'trace',
    name,
    file: fileBesideScenario(replay.file, source),
    format: replay.format,
    timeScale: replay.timeScale,
    ...(replay.from === undefined || replay.from === 0 ? {} : { fromMs: replay.from }),
    ...(replay.to === undefined ? {} : { toMs: replay.to }),
    loops,
  };
}

function normalizePhase(p: PhaseOutput, source: string): Phase {
  const { name } = p;
  if (p.replay !== undefined) return normalizeReplay(p.replay, name, source);
  if (p.count !== undefined) return { kind: 'count', name, count: p.count, rate: p.rate };
  if (p.duration === undefined) throw new Error('phase without duration passed validation');
  if (p.vus !== undefined) return { kind: 'vus', name, durationMs: p.duration, vus: p.vus };
  if (p.ramp !== undefined)
    return { kind: 'ramp', name, durationMs: p.duration, from: p.ramp.from, to: p.ramp.to };
  if (p.rate !== undefined) return { kind: 'constant', name, durationMs: p.duration, rate: p.rate };
  throw new Error('phase without rate, ramp, vus or count passed validation');
}

/** The section as the run reads it; undefined when it skips nothing and accepts nothing. */
export function scenarioChecks(
  skip: readonly SkippedCheck[],
  known: KnownDeviations | undefined,
): ScenarioChecks | undefined {
  if (skip.length === 0 && known === undefined) return undefined;
  return { skip, ...(known ? { known } : {}) };
}

export function normalizeScenario(
  out: ScenarioOutput,
  source: string,
  data: DataFeed | undefined,
  known?: KnownDeviations,
): Scenario {
  const checks = scenarioChecks(out.checks?.skip ?? [], known);
  const { target: t, emulator: e } = out;
  const flows: Flow[] = out.flows.map((f) => ({ name: f.name, weight: f.weight, steps: f.steps }));
  return {
    name: out.name,
    description: out.description,
    source,
    target: {
      auth: t.auth,
      connections: t.connections,
      timeoutMs: t.timeout,
      stallAfterMs: t.stallAfter,
      maxInFlight: t.maxInFlight,
      ...(t.adapt ? {} : { adapt: false as const }),
      ...(t.retry429 === undefined
        ? {}
        : { retry429: { attempts: t.retry429.attempts, baseMs: t.retry429.base, maxMs: t.retry429.max } }),
    },
    emulator: {
      workersMin: e.workersMin,
      workersMax: e.workersMax,
      requestsPerWorker: e.requestsPerWorker,
      idleTimeoutMs: e.idleTimeout,
      coldStartMs: e.coldStart,
      clock: e.clock,
      streamShape: e.streamShape,
      faults: e.faults,
      profile: e.profile,
    },
    ...(out.worker === undefined ? {} : { worker: workerSpec(out.worker, e) }),
    scaling: normalizeScaling(out.scaling),
    arrivals: {
      process: out.arrivals.process,
      seed: out.arrivals.seed,
      burstiness: out.arrivals.burstiness,
    },
    phases: out.phases.map((p) => normalizePhase(p, source)),
    ...(out.warmup > 0 ? { warmupMs: out.warmup } : {}),
    flows,
    data,
    thresholds: out.thresholds,
    llm: out.llm,
    ...(Object.keys(out.tags).length ? { tags: out.tags } : {}),
    ...(out.export.length ? { exports: out.export } : {}),
    ...(out.compare === undefined
      ? {}
      : {
          compare: {
            gates: out.compare.gates,
            significance: out.compare.significance,
          },
        }),
    ...(checks ? { checks } : {}),
  };
}

function workerSpec(w: NonNullable<ScenarioOutput['worker']>, e: ScenarioOutput['emulator']): WorkerSpec {
  return {
    command: w.command,
    env: w.env,
    workersMin: w.workersMin ?? e.workersMin,
    workersMax: w.workersMax ?? e.workersMax,
    idleTimeoutMs: w.idleTimeout ?? e.idleTimeout,
    stopGraceMs: w.stopGrace,
  };
}
