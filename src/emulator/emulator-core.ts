import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { Endpoint, type EndpointContext, type EndpointSettings } from './endpoint.js';
import { FaultSet } from './faults.js';
import { guardedClock } from './guarded-clock.js';
import type { EmulatorPolicy } from './policy/policy.js';
import type { EmulatorConfig } from './options.js';
import type { HandlerProfile } from './profile.js';
import { SeededRandom } from '../core/seeded-random.js';
import { WebhookScheduler, type WebhookPoster } from './webhooks.js';

/** A record made by POST /v1/endpoints, returned as the REST v1 `Endpoint`. */
export type EndpointRecord = Record<string, unknown> & { id: string };

/**
 * The emulator without HTTP: endpoints, pods, faults, the handler profile and the clock. Nothing
 * here sets a timer of its own; everything runs on the injected clock.
 */
export class EmulatorCore implements EndpointContext {
  readonly faults = new FaultSet();
  readonly rng: SeededRandom;
  readonly webhooks: WebhookScheduler;
  readonly endpoints = new Map<string, Endpoint>();
  readonly records = new Map<string, EndpointRecord>();
  readonly pods: Set<string>;
  /** The clock for timers: `clock`, with exceptions in callbacks caught and counted as bugs. */
  readonly timers: Clock;
  /** Exceptions caught in timer callbacks (none, unless the emulator has a bug); the admin state shows them. */
  readonly bugs = { count: 0, last: '' };
  private currentProfile: HandlerProfile;
  private readonly t0: number;

  constructor(
    readonly clock: Clock,
    readonly config: EmulatorConfig,
    poster: WebhookPoster,
  ) {
    this.t0 = clock.now();
    this.timers = guardedClock(clock, (err) => this.noteBug(err));
    this.rng = new SeededRandom(config.seed);
    this.currentProfile = config.profile;
    this.pods = new Set(config.pods);
    for (const [name, value] of config.faults) this.faults.set(name, value);
    this.webhooks = new WebhookScheduler(this.timers, () => this.now(), poster, this.faults);
    for (const id of config.endpoints) this.addEndpoint(this.defaultSettings(id, false));
    for (const id of config.models)
      if (!this.endpoints.has(id)) this.addEndpoint(this.defaultSettings(id, true));
  }

  /** The rule decisions: the faithful policy with the switched-on faults applied. */
  get policy(): EmulatorPolicy {
    return this.faults.policy;
  }

  /** Emulator time: integer milliseconds since start (job timings are integers, SPEC "Job"). */
  readonly now = (): number => Math.round(this.clock.now() - this.t0);

  /** An exception where no request can be answered with it (a timer): counted, never thrown on. */
  noteBug(err: unknown): void {
    this.bugs.count++;
    this.bugs.last = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  }

  profile(): HandlerProfile {
    return this.currentProfile;
  }

  setProfile(p: HandlerProfile): void {
    this.currentProfile = p;
  }

  defaultSettings(id: string, publicModel: boolean): EndpointSettings {
    const c = this.config;
    return {
      id,
      publicModel,
      workersMin: c.workersMin,
      workersMax: c.workersMax,
      idleTimeoutMs: c.idleTimeoutMs,
      coldStartMs: c.coldStartMs,
      executionTimeoutMs: c.executionTimeoutMs,
      requestsPerWorker: c.requestsPerWorker,
      externalOnly: c.externalWorkers && !publicModel,
      workerHoldMs: c.workerHoldMs,
      workerDeadAfterMs: c.workerDeadAfterMs,
    };
  }

  addEndpoint(settings: EndpointSettings): Endpoint {
    const ep = new Endpoint(settings, this);
    this.endpoints.set(settings.id, ep);
    return ep;
  }

  /** A fresh endpoint id in the style of the real service (lower-case letters and digits). */
  newEndpointId(): string {
    for (;;) {
      const id = [...randomBytes(14)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
      if (!this.endpoints.has(id)) return id;
    }
  }

  /** Stops timers at once; resolves when every worker process we started is gone. */
  close(): Promise<void> {
    this.webhooks.close();
    return Promise.all([...this.endpoints.values()].map((ep) => ep.close())).then(() => undefined);
  }
}
