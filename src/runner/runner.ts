import { setMaxListeners } from 'node:events';
import { JobClient } from '../client/job-client.js';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { RECORD_VERSION, type DroppedRecord, type ExchangeRecord, type JobstormRecord, type RunRecord } from '../core/record.js';
import type { DataRow, Phase } from '../scenario/scenario.js';
import { arrivalSchedule, deriveSeed, mulberry32, type ArrivalSchedule, type PhaseWindow } from '../schedule/index.js';
import { compileFlows, FlowPicker } from './compiled-flow.js';
import { startHealthSampler } from './health-sampler.js';
import { runIteration } from './iteration.js';
import { Lateness } from './lateness.js';
import { newCounters, type RunContext } from './run-context.js';
import type { ProgressSnapshot, RunOptions, RunOutcome } from './run-options.js';
import { startWebhookReceiver } from './webhook-receiver.js';

// Kinds that mean no connection could be made; a TLS verdict on the handshake is one of them.
const CONNECT_ERRORS = new Set(['refused', 'dns', 'tls']);

/** How late a timer may wake: arrivals closer than this are awaited by yielding, not sleeping. */
const TIMER_SLACK_MS = 1.5;

const yieldToIo = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A clock whose zero is the run's start, so record times are small. Its zero is an epoch instant
 * (high resolution), so worker threads of one run read the same time base. The zero is set once
 * the run is ready to send (`start`): set-up time is not counted against the first arrivals.
 */
function runClock(base: Clock): Clock & { start(epochZeroMs: number): void } {
  let t0 = base.now();
  return {
    now: () => base.now() - t0,
    sleep: (ms, signal) => base.sleep(ms, signal),
    schedule: (ms, fn) => base.schedule(ms, fn),
    start: (epochZeroMs) => {
      t0 = epochZeroMs - performance.timeOrigin;
    },
  };
}

/**
 * Runs a scenario against a target: arrivals on the schedule (open model, or closed VUs), each
 * arrival one pass through a weighted flow, every HTTP exchange a record. Never throws for what
 * the target does; the outcome says whether the run was interrupted or the target unreachable.
 */
export async function runScenario(o: RunOptions): Promise<RunOutcome> {
  const { scenario } = o;
  const clock = runClock(systemClock);
  const counters = newCounters();
  const stop = new AbortController();
  const abort = new AbortController();
  // Every sleeping iteration and request listens on these two signals: thousands at once is normal.
  setMaxListeners(0, stop.signal, abort.signal);
  const lateness = new Lateness();
  let seq = 0;
  const nextSeq = (): number => ++seq;
  const shardLabel = o.shard ? `${String(o.shard.index)}/${String(o.shard.count)}` : undefined;
  const reach = { connected: false };
  let failedConnects = 0;
  const unreachableAfter = o.unreachableAfter ?? 50;

  const emit = (r: JobstormRecord): void => {
    if (r.type === 'exchange') onExchange(r);
    o.onRecord(r);
  };
  const onExchange = (r: ExchangeRecord): void => {
    counters.requests++;
    if (r.status === 429) counters.throttled++;
    if (r.error) counters.errors++;
    if (r.status !== undefined) reach.connected = true;
    else if (r.error && CONNECT_ERRORS.has(r.error.kind) && !reach.connected && ++failedConnects >= unreachableAfter) stop.abort(new Error('target unreachable'));
    // Scheduling lateness is about arrivals: the first request of each flow iteration.
    if (r.step?.startsWith('1:') && (r.attempt === undefined || r.attempt === 1)) lateness.add(r.sentAt - r.intendedAt);
  };

  const client = new JobClient({
    baseUrl: o.target.baseUrl,
    ...(o.target.managementUrl ? { managementUrl: o.target.managementUrl } : {}),
    apiKey: o.target.apiKey,
    auth: scenario.target.auth,
    connections: scenario.target.connections,
    timeoutMs: scenario.target.timeoutMs,
    clock,
    ...(scenario.target.retry429 ? { retry429: { ...scenario.target.retry429 } } : {}),
    onRecord: emit,
    ...(shardLabel ? { shard: shardLabel } : {}),
    nextSeq,
  });
  const receiver = await startWebhookReceiver({ clock, emit, nextSeq, ...(o.webhookAnswers ? { answers: o.webhookAnswers } : {}) });
  const random = mulberry32(deriveSeed(scenario.arrivals.seed, 1000 + (o.shard?.index ?? 0)));
  const ctx: RunContext = {
    client,
    clock,
    emit,
    nextSeq,
    webhookUrl: receiver.url,
    blastTarget: { baseUrl: o.target.baseUrl, authorization: scenario.target.auth === 'bare' ? o.target.apiKey : `Bearer ${o.target.apiKey}` },
    ...(o.target.emulator ? { emulator: o.target.emulator } : {}),
    ...(scenario.data ? { data: scenario.data } : {}),
    ...(shardLabel ? { shard: shardLabel } : {}),
    stop: stop.signal,
    abort: abort.signal,
    random,
    counters,
  };

  const flows = new FlowPicker(compileFlows(scenario.flows));
  const schedule = arrivalSchedule(scenario.phases, { process: scenario.arrivals.process, seed: scenario.arrivals.seed, ...(o.shard ? { shard: o.shard } : {}) });

  // Time 0 once everything is set up, so the first arrivals are not late by the set-up (shard
  // threads of one run are told a common time 0 instead, once every shard is set up).
  const epochZeroMs = o.epochZeroMs ?? (o.startAt ? await o.startAt() : performance.timeOrigin + performance.now());
  clock.start(epochZeroMs);
  const startedAtMs = Math.round(epochZeroMs);
  const run: RunRecord = { v: RECORD_VERSION, type: 'run', runId: o.runId, scenario: scenario.name, target: o.target.baseUrl, startedAtMs, ownsEndpoint: o.target.ownsEndpoint };
  if (shardLabel) run.shard = shardLabel;
  if (o.target.requestsPerWorker !== undefined) run.requestsPerWorker = o.target.requestsPerWorker;
  if (o.target.clock === 'manual') run.targetClock = 'manual';
  o.onRecord(run);

  let interrupted = false;
  const onInterrupt = (): void => {
    interrupted = true;
    stop.abort(new Error('interrupted'));
  };
  o.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  if (o.interrupt?.aborted) onInterrupt();

  const rows = scenario.data?.rows ?? [];
  let iteration = 0;
  let idle: (() => void) | undefined;
  const rowFor = (n: number): DataRow | undefined => {
    if (rows.length === 0) return undefined;
    return scenario.data?.order === 'random' ? rows[Math.floor(random() * rows.length)] : rows[n % rows.length];
  };
  const launch = (intendedAt: number): Promise<void> => {
    counters.inFlight++;
    const n = iteration++;
    const flow = flows.pick(random());
    return runIteration(flow, ctx, intendedAt, n, rowFor(n))
      .catch(() => undefined)
      .finally(() => {
        counters.inFlight--;
        if (counters.inFlight === 0) idle?.();
      });
  };
  const arrive = (intendedAt: number): void => {
    counters.arrivals++;
    if (counters.inFlight >= scenario.target.maxInFlight) {
      counters.dropped++;
      const d: DroppedRecord = { v: RECORD_VERSION, type: 'dropped', seq: nextSeq(), intendedAt, flow: '*' };
      if (shardLabel) d.shard = shardLabel;
      emit(d);
      return;
    }
    void launch(intendedAt);
  };

  const stopSampler = o.sampleHealth === false ? () => Promise.resolve() : startHealthSampler(ctx);
  const stopProgress = startProgress(o, clock, counters);

  await runSchedule(schedule, scenario.phases, ctx, arrive, launch, o.shard);

  // Let flows finish on their own, then stop them at the next step, then abort what is left.
  const waitIdle = (ms: number): Promise<void> =>
    counters.inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const cancel = clock.schedule(ms, resolve);
          idle = () => {
            cancel();
            resolve();
          };
        });
  if (!stop.signal.aborted) await raceAbort(waitIdle(o.gracefulStopMs ?? 30_000), stop.signal);
  if (!stop.signal.aborted) stop.abort(new Error('run finished'));
  const drainMs = o.drainMs ?? 3000;
  const drainEnd = clock.now() + drainMs;
  await waitIdle(drainMs);
  // No samples after the flows; the one in flight may finish within the drain time, so a clean
  // run does not end with a /health sample cut short by the abort below.
  const sampled = stopSampler();
  await new Promise<void>((resolve) => {
    const cancel = clock.schedule(Math.max(0, drainEnd - clock.now()), resolve);
    void sampled.then(() => {
      cancel();
      resolve();
    });
  });
  abort.abort(new Error('drain time is up'));
  await waitIdle(1000);
  await sampled;
  stopProgress();
  o.interrupt?.removeEventListener('abort', onInterrupt);
  await receiver.close();
  await client.destroy();

  return {
    runId: o.runId,
    startedAtMs,
    durationMs: clock.now(),
    interrupted,
    targetUnreachable: !reach.connected && counters.requests > 0,
    counters,
    latenessP99Ms: lateness.p99(),
  };
}

function raceAbort(p: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    void p.then(done);
  });
}

/** This shard's share of a closed phase's virtual users (the first shards take the remainder). */
function vusOf(vus: number, shard: RunOptions['shard']): number {
  if (!shard) return vus;
  return Math.floor(vus / shard.count) + (shard.index <= vus % shard.count ? 1 : 0);
}

/**
 * Walks the schedule's phases in order: open phases start each arrival at its intended time
 * (late ones at once, never silently dropped from the plan); closed phases loop virtual users.
 */
async function runSchedule(schedule: ArrivalSchedule, phases: readonly Phase[], ctx: RunContext, arrive: (at: number) => void, launch: (at: number) => Promise<void>, shard: RunOptions['shard']): Promise<void> {
  const { clock, stop } = ctx;
  const sleepUntil = async (at: number): Promise<boolean> => {
    const wait = at - clock.now();
    if (wait <= 0) return !stop.aborted;
    try {
      await clock.sleep(wait, stop);
      return true;
    } catch {
      return false;
    }
  };
  const arrivals = schedule.arrivals();
  let next = arrivals.next();
  for (const w of schedule.windows) {
    if (!(await sleepUntil(w.startMs))) return;
    if (w.kind === 'vus') {
      await closedPhase(w, vusOf(phaseVus(phases, w), shard), ctx, launch);
      continue;
    }
    while (!next.done && next.value.phase === w.phase) {
      if (stop.aborted) return;
      const now = clock.now();
      if (next.value.atMs > now) {
        // A timer cannot wake us sooner than about a millisecond late, so an arrival due within
        // that is awaited by yielding to I/O (setImmediate) instead. Longer waits sleep, in short
        // slices so an interrupt is seen promptly even between sparse arrivals.
        if (next.value.atMs - now < TIMER_SLACK_MS) await yieldToIo();
        else if (!(await sleepUntil(Math.min(next.value.atMs - TIMER_SLACK_MS, now + 100)))) return;
        continue;
      }
      while (!next.done && next.value.phase === w.phase && next.value.atMs <= now) {
        arrive(next.value.atMs);
        next = arrivals.next();
      }
    }
    if (!(await sleepUntil(w.endMs))) return;
  }
}

function phaseVus(phases: readonly Phase[], w: PhaseWindow): number {
  const phase = phases[w.phase];
  return phase?.kind === 'vus' ? phase.vus : 0;
}

async function closedPhase(w: PhaseWindow, vus: number, ctx: RunContext, launch: (at: number) => Promise<void>): Promise<void> {
  const { clock, stop } = ctx;
  const user = async (): Promise<void> => {
    while (!stop.aborted && clock.now() < w.endMs) await launch(clock.now());
  };
  await Promise.all(Array.from({ length: vus }, user));
}

function startProgress(o: RunOptions, clock: Clock, counters: RunContext['counters']): () => void {
  if (!o.onProgress) return () => undefined;
  const every = o.progressEveryMs ?? 1000;
  let lastArrivals = 0;
  let lastAt = 0;
  let cancel = (): void => undefined;
  const tick = (): void => {
    const now = clock.now();
    const snapshot: ProgressSnapshot = { ...counters, jobs: { ...counters.jobs }, elapsedMs: now, rate: ((counters.arrivals - lastArrivals) * 1000) / Math.max(1, now - lastAt) };
    lastArrivals = counters.arrivals;
    lastAt = now;
    o.onProgress?.(snapshot);
    cancel = clock.schedule(every, tick);
  };
  cancel = clock.schedule(every, tick);
  return () => cancel();
}
