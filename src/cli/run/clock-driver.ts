import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ManualClock } from '../../core/manual-clock.js';

/**
 * Each undici request (jobstorm's client, the emulator's webhook poster) begins with one, ends with
 * one of the other two; so does each node:http request (the OpenTelemetry exporter's), its end the
 * request's error or the end of its response's body (see CLIENT_RESPONSE).
 */
const CLIENT_OPEN = ['undici:request:create', 'http.client.request.start'];
const CLIENT_CLOSE = ['undici:request:trailers', 'undici:request:error', 'http.client.request.error'];
/**
 * node:http publishes this when a response's headers arrive, not its body: the exchange ends when
 * the body does. Counted closed at the headers, an exporter still reading its answer looked idle,
 * and on a loaded machine the clock moved to its next flush meanwhile ("the previous export is
 * still in flight").
 */
const CLIENT_RESPONSE = 'http.client.response.finish';
/** Each request a node:http server (the emulator, the webhook receiver) took, and its answer's end. */
const SERVER_START = 'http.server.request.start';
const SERVER_OPEN = [SERVER_START];
const SERVER_CLOSE = ['http.server.response.finish'];
/** Steps of an exchange under way: any of them means the loop is not quiet yet. */
const PROGRESS = ['undici:client:sendHeaders', 'undici:request:headers', 'undici:request:bodySent'];

/** A file read or write still under way (the shard barrier's files): only its end can move the run. */
const FILE_WORK = /^(FSReq|CloseReq|FileHandle)/;

function fileWorkPending(): boolean {
  return process.getActiveResourcesInfo().some((r) => FILE_WORK.test(r));
}

export interface ClockDriverOptions {
  /** Most clock advances before the driver gives up (a run that never ends); Infinity: none. */
  maxSteps?: number;
  /**
   * Most real time, in ms, before the driver gives up (a run that waits on something off the
   * clock); Infinity: none (`jobstorm fuzz`, whose budget bounds it instead).
   */
  maxRealMs?: number;
}

/**
 * Moves a ManualClock shared by the code under test and an in-process emulator, so a run over
 * loopback takes milliseconds of real time and reads the same times on every machine. Time moves
 * only when nothing is under way: every request sent has either come back or is parked at the
 * server (a runsync waiting for its job, which only time can finish), no file read or write is
 * pending, no work the run declared under way (ManualClock.underWay) is unsettled, and a few turns
 * of the event loop went by with no exchange making progress. Then the clock jumps to its next timer.
 *
 * A request waiting for a free connection behind parked ones never reaches the server: after a
 * longer quiet spell time moves anyway, as it would for the parked requests in front of it.
 */
export class ClockDriver {
  private clientOpen = 0;
  private serverOpen = 0;
  /** Requests servers took, until answered: one whose body is still arriving is not parked. */
  private readonly atServers = new Set<IncomingMessage>();
  private activity = 0;
  private steps = 0;
  private readonly listeners: [string, (message: unknown) => void][] = [];

  constructor(
    readonly clock: ManualClock,
    private readonly o: ClockDriverOptions = {},
  ) {}

  /** How many times the clock moved so far. */
  get advances(): number {
    return this.steps;
  }

  /** Settles with `work`, moving the clock whenever the loop is quiet; throws when a bound is hit. */
  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const done = work.finally(() => (settled = true));
    // The driver's own verdict comes from `done`; a rejection is not left unhandled meanwhile.
    done.catch(() => undefined);
    this.listen();
    try {
      await this.drive(() => settled, Infinity);
    } finally {
      this.unlisten();
    }
    return done;
  }

  /**
   * Lets `ms` of clock time pass as the code under test would live it: each timer on the way fires
   * once what the one before it started has settled; resolves once what the last one started has.
   */
  async advanceBy(ms: number): Promise<void> {
    const until = this.clock.now() + ms;
    this.listen();
    try {
      await this.drive(() => false, until);
      this.clock.advance(Math.max(0, until - this.clock.now()));
      await this.drive(() => false, this.clock.now());
    } finally {
      this.unlisten();
    }
  }

  /** Drives until `settled()`, or until the loop is idle with no timer due by `until`. */
  private async drive(settled: () => boolean, until: number): Promise<void> {
    const maxSteps = this.o.maxSteps ?? 200_000;
    const maxRealMs = this.o.maxRealMs ?? 30_000;
    const deadline = performance.now() + maxRealMs;
    let quiet = 0;
    let seen = this.activity;
    while (!settled()) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (performance.now() > deadline) throw this.stuck(`ran past ${String(maxRealMs)} ms of real time`);
      // Work the run declared under way (ManualClock.underWay: a live export's send) holds time
      // whole, whatever its requests look like meanwhile and however long the loop stays quiet: the
      // requests show only part of it, and it ends within a real-time bound of its own.
      if (this.activity !== seen || this.clock.workUnderWay > 0) {
        seen = this.activity;
        quiet = 0;
        continue;
      }
      // Parked at the server or back: only time can move the run now.
      const idle = (this.clientOpen <= this.serverOpen && quiet >= 3 && this.reading() === 0) || quiet >= 50;
      quiet++;
      if (!idle) continue;
      // Asked only now, not every turn: listing the process's resources is the costliest part of a turn.
      if (fileWorkPending()) {
        quiet = 0;
        continue;
      }
      const due = this.clock.nextDue();
      if (due === undefined || due > until) {
        if (until !== Infinity) return;
        continue;
      }
      if (++this.steps > maxSteps) throw this.stuck(`moved the clock ${String(maxSteps)} times`);
      this.clock.advance(Math.max(0, due - this.clock.now()));
      quiet = 0;
    }
  }

  /**
   * Requests at a server whose body has not all arrived: still on their way, not parked. Node 20
   * publishes a node:http client's request start only once its body is sent, so a request whose
   * headers went first (flushHeaders, a body streamed) is at the server before its client counts
   * it: found as CI's capacity-export flake, where the clock moved to the next flush while an OTLP
   * export's body was still coming, and that flush found it in flight.
   */
  private reading(): number {
    let n = 0;
    for (const req of this.atServers) if (!req.complete) n++;
    return n;
  }

  private stuck(why: string): Error {
    const due = this.clock.nextDue();
    return new Error(
      `ClockDriver gave up: it ${why} and the work did not finish (clock at ${String(this.clock.now())} ms, next timer ${due === undefined ? 'none' : `at ${String(due)} ms`}, ${String(this.clientOpen)} requests open at clients, ${String(this.serverOpen)} at servers, ${String(this.clock.workUnderWay)} declared under way)`,
    );
  }

  private listen(): void {
    const on = (names: readonly string[], fn: () => void): void => {
      for (const name of names) {
        const listener = (): void => {
          this.activity++;
          fn();
        };
        subscribe(name, listener);
        this.listeners.push([name, listener]);
      }
    };
    on(CLIENT_OPEN, () => this.clientOpen++);
    on(CLIENT_CLOSE, () => this.clientOpen--);
    on(SERVER_OPEN, () => this.serverOpen++);
    on(SERVER_CLOSE, () => this.serverOpen--);
    on(PROGRESS, () => undefined);
    // A server that drops a connection without answering (a foreign target's reset) never finishes
    // its response: counted open for ever, it would pass for a parked request and let time move
    // while another was on its way. Its close ends it instead. Each request is kept until
    // answered, so one whose body is still arriving is not taken for parked (reading()).
    const atServer = (message: unknown): void => {
      const { request, response: res } = message as { request?: IncomingMessage; response?: ServerResponse };
      if (request) {
        this.atServers.add(request);
        res?.once('close', () => this.atServers.delete(request));
        res?.once('finish', () => this.atServers.delete(request));
      }
      res?.once('close', () => {
        if (res.writableFinished) return;
        this.activity++;
        this.serverOpen--;
      });
    };
    subscribe(SERVER_START, atServer);
    this.listeners.push([SERVER_START, atServer]);
    const response = (message: unknown): void => {
      this.activity++;
      const res = (message as { response?: IncomingMessage }).response;
      let open = true;
      const close = (): void => {
        if (!open) return;
        open = false;
        this.activity++;
        this.clientOpen--;
      };
      if (res === undefined || res.complete) close();
      else {
        res.once('end', close);
        res.once('close', close);
      }
    };
    subscribe(CLIENT_RESPONSE, response);
    this.listeners.push([CLIENT_RESPONSE, response]);
  }

  private unlisten(): void {
    for (const [name, listener] of this.listeners.splice(0)) unsubscribe(name, listener);
  }
}
