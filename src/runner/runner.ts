import { setMaxListeners } from 'node:events';
import type { JobClientOptions } from '../client/client-options.js';
import { JobClient } from '../client/job-client.js';
import type { Clock } from '../core/clock.js';
import { LoopHeartbeat } from '../core/loop-heartbeat.js';
import type { JobstormRecord } from '../core/record.js';
import { RouteWatch } from '../core/route-watch.js';
import { arrivalSchedule, deriveSeed, mulberry32, type ArrivalSchedule } from '../schedule/index.js';
import { Dispatcher } from './dispatcher.js';
import { startHealthSampler } from './health-sampler.js';
import { Lateness } from './lateness.js';
import { pace } from './pacer.js';
import { connectionsToOpen, firstSecondArrivals, HeldRecords, warmUp } from './readiness.js';
import { preflight } from './preflight.js';
import { startProgress } from './progress.js';
import { RecordTap } from './record-tap.js';
import { runRecord } from './run-record.js';
import { runClock } from './run-clock.js';
import { newCounters, type RunContext } from './run-context.js';
import { DEFAULT_GRACEFUL_STOP_MS, type RunOptions, type RunOutcome } from './run-options.js';
import { StallWatch } from './stall-watch.js';
import { eventLoopProbe, GeneratorWatch } from './generator-watch.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import { traceTimesOf } from './trace-times.js';

type RunClock = ReturnType<typeof runClock>;

/** The run's watches, made once time 0 is set (requests can only go out after that). */
interface Watches {
  stall?: StallWatch;
  generator?: GeneratorWatch;
  heartbeat?: LoopHeartbeat;
  /** Made with the context, which the client is part of; a request can only end after that. */
  dispatcher?: Dispatcher;
}

/** The watches that start at time 0 need the time base; time 0 is the end of the set-up. */
async function startAtZero(
  o: RunOptions,
  clock: RunClock,
  ctx: RunContext,
  w: Watches,
  held: HeldRecords,
): Promise<{ startedAtMs: number; stall: StallWatch; generator: GeneratorWatch; heartbeat: LoopHeartbeat }> {
  // Time 0 once everything is set up and ready, so the first arrivals are not late by the set-up
  // (shard threads of one run are told a common time 0 instead, once every shard is ready).
  const epochZeroMs = o.epochZeroMs ?? (o.startAt ? await o.startAt() : clock.epochNow());
  const before = clock.now();
  clock.start(epochZeroMs);
  const shiftMs = clock.now() - before;
  const startedAtMs = Math.round(epochZeroMs);
  o.onRecord(runRecord(o, startedAtMs, ctx.shard));
  // The preflight's records, made before time 0, follow the run record on its time base.
  held.release(shiftMs, (r) => ctx.emit(r));
  const heartbeat = new LoopHeartbeat(clock);
  w.heartbeat = heartbeat;
  const stall = new StallWatch(
    clock,
    o.scenario.target.stallAfterMs,
    (r) => o.onRecord(r),
    () => ctx.nextSeq(),
    (now) => heartbeat.gapAt(now),
  );
  w.stall = stall;
  const generator = new GeneratorWatch(
    clock,
    o.generatorProbe ? o.generatorProbe() : eventLoopProbe(o.cpu),
    (r) => o.onRecord(r),
    () => ctx.nextSeq(),
    (message) => o.onGeneratorLimited?.(message),
    o.scenario.warmupMs ?? 0,
  );
  w.generator = generator;
  return { startedAtMs, stall, generator, heartbeat };
}

/**
 * Before time 0: the preflight (its records held for the run's time base), then the warm-up that
 * compiles the hot paths (see readiness.ts) and the target's connections opened, unless the
 * preflight found the load must not start.
 */
async function getReady(
  o: RunOptions,
  ctx: RunContext,
  stop: AbortController,
  schedule: ArrivalSchedule,
): Promise<RunOutcome['preflight']> {
  const checked = o.preflight && !stop.signal.aborted ? await preflight(ctx, o.target.baseUrl) : undefined;
  if (checked?.fatal) stop.abort(new Error(checked.fatal.message));
  if (stop.signal.aborted) return checked;
  if (o.warmUp !== false)
    await warmUp(o.scenario, ctx.clock, firstSecondArrivals(schedule), (r) => o.onWarmupRecord?.(r));
  // The connections the first second will use, open before it: its requests do not wait for them.
  await ctx.client.openConnections(connectionsToOpen(o.scenario, schedule));
  return checked;
}

/** The first Ctrl-C (the owner's interrupt) stops the run as its end would. */
function listenForInterrupt(
  o: RunOptions,
  stop: AbortController,
): { interrupted: () => boolean; release: () => void } {
  let interrupted = false;
  const onInterrupt = (): void => {
    interrupted = true;
    stop.abort(new Error('interrupted'));
  };
  o.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  if (o.interrupt?.aborted) onInterrupt();
  return {
    interrupted: () => interrupted,
    release: () => o.interrupt?.removeEventListener('abort', onInterrupt),
  };
}

/**
 * Runs a scenario against a target: arrivals on the schedule (open model, or closed VUs), each
 * arrival one pass through a weighted flow, every HTTP exchange a record. Never throws for what
 * the target does; the outcome says whether the run was interrupted or the target unreachable.
 *
 * Its parts, after vegeta: the pacer says when arrivals are due, the dispatcher starts iterations,
 * the record tap counts what comes back, and the wind-down ends what is still in flight.
 */
export async function runScenario(o: RunOptions): Promise<RunOutcome> {
  const clock = runClock(o.clock);
  const counters = newCounters();
  const stop = new AbortController();
  const abort = new AbortController();
  // Every sleeping iteration and request listens on these two signals: thousands at once is normal.
  setMaxListeners(0, stop.signal, abort.signal);
  const lateness = new Lateness();
  const routes = new RouteWatch({ adapt: o.scenario.target.adapt !== false });
  const w: Watches = {};
  const warmupMs = o.scenario.warmupMs ?? 0;
  const arrived = (ms: number): void => {
    // The warm-up is not measured: its lateness (JIT, connection set-up) is not the run's figure.
    if (warmupMs === 0 || clock.now() - ms >= warmupMs) lateness.add(ms);
    w.generator?.arrival(ms);
  };
  const tap = new RecordTap(
    counters,
    o.unreachableAfter ?? 50,
    () => stop.abort(new Error('target unreachable')),
    routes,
  );
  const held = new HeldRecords();
  const emit = (r: JobstormRecord): void => {
    if (held.hold(r)) return;
    if (r.type === 'exchange') {
      tap.exchange(r);
      w.stall?.exchange(r);
      w.generator?.exchange(r);
    }
    o.onRecord(r);
  };
  const hooks = clientHooks(w);
  const { ctx, client, closeReceiver } = await setUp(
    o,
    clock,
    emit,
    { counters, routes, arrived },
    stop.signal,
    abort.signal,
    hooks,
  );
  const dispatcher = new Dispatcher(o.scenario, ctx);
  w.dispatcher = dispatcher;
  const { schedule, traceErrors } = scheduleOf(o);
  const interrupt = listenForInterrupt(o, stop);
  const checked = await getReady(o, ctx, stop, schedule);
  const zero = await startAtZero(o, clock, ctx, w, held);
  const stopSampler =
    o.sampleHealth === false || stop.signal.aborted ? () => Promise.resolve() : startHealthSampler(ctx);
  const stopProgress = startProgress(o, clock, counters);
  const traceError = await pace(schedule, o.scenario.phases, ctx, dispatcher, o.shard, (phase) =>
    traceErrors.get(phase),
  );
  const iterationsCut = await windDown(o, ctx, dispatcher, stop, abort, stopSampler, zero.stall);
  zero.stall.close();
  const generatorFigures = zero.generator.close();
  stopProgress();
  interrupt.release();
  await closeReceiver();
  await client.destroy();
  // Last: an answer or a delivery read before this is judged against a loop that kept its beat.
  zero.heartbeat.close();

  return {
    runId: o.runId,
    startedAtMs: zero.startedAtMs,
    durationMs: clock.now(),
    interrupted: interrupt.interrupted(),
    targetUnreachable: (!tap.connected && counters.requests > 0) || checked?.fatal?.kind === 'unreachable',
    counters,
    latenessP99Ms: lateness.p99(),
    generator: { ...generatorFigures, latenessP99Ms: lateness.p99() },
    ...(checked ? { preflight: checked } : {}),
    iterationsCut,
    ...connectionWaitOf(dispatcher),
    ...(traceError === undefined ? {} : { traceError }),
  };
}

/**
 * The run's schedule, and the bad trace row of each phase that has one past the rows checked at
 * load (a long trace): the pacer ends the arrivals once it has played the rows before it.
 */
function scheduleOf(o: RunOptions): { schedule: ArrivalSchedule; traceErrors: Map<number, string> } {
  const traceErrors = new Map<number, string>();
  const schedule = arrivalSchedule(o.scenario.phases, {
    process: o.scenario.arrivals.process,
    seed: o.scenario.arrivals.seed,
    burstiness: o.scenario.arrivals.burstiness,
    ...(o.shard ? { shard: o.shard } : {}),
    traces: traceTimesOf(o.scenario.phases, (error, phase) => {
      if (!traceErrors.has(phase)) traceErrors.set(phase, `the trace stopped at a bad row: ${error.message}`);
    }),
  });
  return { schedule, traceErrors };
}

function connectionWaitOf(d: Dispatcher): Pick<RunOutcome, 'connectionWait'> {
  const wait = d.connectionWait();
  return wait ? { connectionWait: wait } : {};
}

/** What the run's watches need to hear from the client. */
type ClientHooks = Required<Pick<JobClientOptions, 'onSend' | 'onSettled' | 'loopGapAt' | 'onFirstOpen'>>;

/** The client tells the run's watches, once they exist (from time 0), what they follow. */
function clientHooks(w: Watches): ClientHooks {
  return {
    onSend: () => w.stall?.sent(),
    onSettled: () => w.dispatcher?.admit(),
    loopGapAt: (now) => w.heartbeat?.gapAt(now) ?? 0,
    onFirstOpen: (startedAt, endedAt) => w.generator?.connectionOpened(startedAt, endedAt),
  };
}

/** The client, the webhook receiver and the context every iteration shares. */
async function setUp(
  o: RunOptions,
  clock: Clock,
  emit: (r: JobstormRecord) => void,
  shared: Pick<RunContext, 'counters' | 'routes' | 'arrived'>,
  stop: AbortSignal,
  abort: AbortSignal,
  hooks: ClientHooks,
): Promise<{ ctx: RunContext; client: JobClient; closeReceiver: () => Promise<void> }> {
  const { scenario } = o;
  let seq = 0;
  const nextSeq = (): number => ++seq;
  const shard = o.shard ? `${String(o.shard.index)}/${String(o.shard.count)}` : undefined;
  const client = new JobClient({
    baseUrl: o.target.baseUrl,
    ...(o.target.managementUrl ? { managementUrl: o.target.managementUrl } : {}),
    apiKey: o.target.apiKey,
    auth: scenario.target.auth,
    connections: scenario.target.connections,
    localAddress: o.target.localAddress,
    timeoutMs: scenario.target.timeoutMs,
    clock,
    ...(scenario.target.retry429 ? { retry429: { ...scenario.target.retry429 } } : {}),
    onRecord: emit,
    methodFor: (op) => shared.routes.methodFor(op),
    ...hooks,
    ...(shard ? { shard } : {}),
    nextSeq,
  });
  const receiver = await startWebhookReceiver({
    clock,
    emit,
    nextSeq,
    loopGapAt: hooks.loopGapAt,
    ...(o.webhookAnswers ? { answers: o.webhookAnswers } : {}),
    adapt: scenario.target.adapt !== false,
  });
  const ctx: RunContext = {
    client,
    clock,
    emit,
    nextSeq,
    webhookUrl: receiver.url,
    blastTarget: {
      baseUrl: o.target.baseUrl,
      authorization:
        scenario.target.auth === 'none'
          ? ''
          : scenario.target.auth === 'bare'
            ? o.target.apiKey
            : `Bearer ${o.target.apiKey}`,
    },
    ...(o.target.emulator ? { emulator: o.target.emulator } : {}),
    ...(scenario.data ? { data: scenario.data } : {}),
    ...(shard ? { shard } : {}),
    stop,
    abort,
    random: mulberry32(deriveSeed(scenario.arrivals.seed, 1000 + (o.shard?.index ?? 0))),
    ...shared,
    ...(scenario.target.auth === 'none' ? { keyless: true } : {}),
  };
  return { ctx, client, closeReceiver: () => receiver.close() };
}

/**
 * After the last arrival: let flows finish on their own (graceful stop), then stop them at their
 * next step, then give requests in flight the drain time, then abort what is left. A stalled
 * target (dead or frozen) cannot finish flows: the graceful stop ends as soon as the stall is seen.
 */
async function windDown(
  o: RunOptions,
  ctx: RunContext,
  dispatcher: Dispatcher,
  stop: AbortController,
  abort: AbortController,
  stopSampler: () => Promise<void>,
  watch: StallWatch,
): Promise<number> {
  const { clock } = ctx;
  const stalled = new AbortController();
  if (watch.stalled) stalled.abort();
  else watch.onStall(() => stalled.abort());
  if (!stop.signal.aborted)
    await raceAbort(
      dispatcher.waitIdle(o.gracefulStopMs ?? DEFAULT_GRACEFUL_STOP_MS),
      AbortSignal.any([stop.signal, stalled.signal]),
    );
  // Iterations still going when the graceful stop ran out are cut at their next step (k6's gracefulStop).
  const cut = stop.signal.aborted ? 0 : ctx.counters.inFlight;
  if (!stop.signal.aborted) stop.abort(new Error('run finished'));
  const drainMs = o.drainMs ?? 3000;
  const drainEnd = clock.now() + drainMs;
  await dispatcher.waitIdle(drainMs);
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
  await dispatcher.waitIdle(1000);
  await sampled;
  return cut;
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
