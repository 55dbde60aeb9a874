import type { z } from 'zod';
import type { PhaseSchema } from './phase-schema.js';
import type { ScenarioOutput } from './scenario-schema.js';
import { STEP_PAYLOADS, type StepOutput } from './step-schema.js';
import type { DataFeed, Flow, Phase, Scenario, Step, Submission } from './scenario.js';
import type { WorkerSpec } from './worker-schema.js';

/*
 * From the schema's output (already validated, cross-field rules included) to the `Scenario` the
 * runner reads. Anything impossible here means validation let it through: a programmer error.
 */

type PhaseOutput = z.output<typeof PhaseSchema>;
type SubmissionOutput = NonNullable<z.output<typeof STEP_PAYLOADS.run>>;

function normalizePhase(p: PhaseOutput): Phase {
  const name = p.name === undefined ? {} : { name: p.name };
  if (p.count !== undefined)
    return { kind: 'count', ...name, count: p.count, ...(p.rate === undefined ? {} : { rate: p.rate }) };
  if (p.duration === undefined) throw new Error('phase without duration passed validation');
  if (p.vus !== undefined) return { kind: 'vus', ...name, durationMs: p.duration, vus: p.vus };
  if (p.ramp !== undefined)
    return { kind: 'ramp', ...name, durationMs: p.duration, from: p.ramp.from, to: p.ramp.to };
  if (p.rate !== undefined) return { kind: 'constant', ...name, durationMs: p.duration, rate: p.rate };
  throw new Error('phase without rate, ramp, vus or count passed validation');
}

function submission(s: SubmissionOutput): Submission {
  return {
    input: s.input,
    ...(s.webhook === undefined ? {} : { webhook: s.webhook }),
    ...(s.policy === undefined ? {} : { policy: s.policy }),
    ...(s.s3Config === undefined ? {} : { s3Config: s.s3Config }),
    ...(s.payloadBytes === undefined ? {} : { payloadBytes: s.payloadBytes }),
  };
}

// `- poll:` with nothing after it reads as null in YAML: treat it as `poll: {}`.
const defaults = {
  run: () => STEP_PAYLOADS.run.unwrap().parse({}),
  runsync: () => STEP_PAYLOADS.runsync.unwrap().parse({}),
  poll: () => STEP_PAYLOADS.poll.unwrap().parse({}),
  stream: () => STEP_PAYLOADS.stream.unwrap().parse({}),
};

export function normalizeStep(step: StepOutput): Step {
  if ('run' in step) return { kind: 'run', ...submission(step.run ?? defaults.run()) };
  if ('runsync' in step) {
    const s = step.runsync ?? defaults.runsync();
    return { kind: 'runsync', ...submission(s), ...(s.wait === undefined ? {} : { waitMs: s.wait }) };
  }
  if ('poll' in step) {
    const p = step.poll ?? defaults.poll();
    return {
      kind: 'poll',
      until: p.until,
      intervalMs: p.interval,
      backoff: p.backoff,
      maxIntervalMs: p.maxInterval,
      timeoutMs: p.timeout,
    };
  }
  if ('stream' in step) {
    const s = step.stream ?? defaults.stream();
    return { kind: 'stream', timeoutMs: s.timeout, intervalMs: s.interval };
  }
  if ('cancel' in step) {
    const c = step.cancel ?? {};
    return {
      kind: 'cancel',
      ...(c.after === undefined ? {} : { afterMs: c.after }),
      ...(c.when === undefined ? {} : { when: c.when }),
    };
  }
  if ('status' in step)
    return { kind: 'status', ...(step.status?.ttl === undefined ? {} : { ttlMs: step.status.ttl }) };
  if ('retry' in step) return { kind: 'retry' };
  if ('purge' in step) return { kind: 'purge' };
  if ('health' in step) return { kind: 'health' };
  if ('sleep' in step) {
    const s = step.sleep;
    return typeof s === 'number'
      ? { kind: 'sleep', minMs: s, maxMs: s }
      : { kind: 'sleep', minMs: s.min, maxMs: s.max };
  }
  if ('openai' in step) {
    const o = step.openai;
    return {
      kind: 'openai',
      path: o.path,
      stream: o.stream,
      ...(o.body === undefined ? {} : { body: o.body }),
    };
  }
  if ('requests' in step) return { kind: 'requests' };
  if ('advance' in step) return { kind: 'advance', ms: step.advance };
  if ('loop' in step)
    return { kind: 'loop', times: step.loop.times, steps: step.loop.steps.map(normalizeStep) };
  if ('blast' in step) {
    const b = step.blast;
    return {
      kind: 'blast',
      op: b.op,
      durationMs: b.duration,
      connections: b.connections,
      ...(b.rate === undefined ? {} : { rate: b.rate }),
    };
  }
  return { kind: 'probe', probe: step.probe };
}

export function normalizeScenario(out: ScenarioOutput, source: string, data: DataFeed | undefined): Scenario {
  const { target: t, emulator: e } = out;
  const flows: Flow[] = out.flows.map((f) => ({
    name: f.name,
    weight: f.weight,
    steps: f.steps.map(normalizeStep),
  }));
  return {
    name: out.name,
    ...(out.description === undefined ? {} : { description: out.description }),
    source,
    target: {
      auth: t.auth,
      connections: t.connections,
      ...(t.timeout === undefined ? {} : { timeoutMs: t.timeout }),
      stallAfterMs: t.stallAfter,
      maxInFlight: t.maxInFlight,
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
    arrivals: { process: out.arrivals.process, seed: out.arrivals.seed },
    phases: out.phases.map(normalizePhase),
    ...(out.warmup > 0 ? { warmupMs: out.warmup } : {}),
    flows,
    ...(data === undefined ? {} : { data }),
    thresholds: out.thresholds,
    ...(Object.keys(out.tags).length ? { tags: out.tags } : {}),
    ...(out.export.length ? { exports: out.export } : {}),
    ...(out.compare === undefined
      ? {}
      : {
          compare: {
            gates: out.compare.gates,
            ...(out.compare.significance === undefined ? {} : { significance: out.compare.significance }),
          },
        }),
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
