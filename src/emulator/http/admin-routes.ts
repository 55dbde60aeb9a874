import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ManualClock } from '../../core/manual-clock.js';
import type { EmulatorCore } from '../emulator-core.js';
import { FaultsInputSchema, FAULTS, isFaultName, parseFaults } from '../faults.js';
import type { Endpoint } from '../endpoint.js';
import { echoedInput, jobView } from '../job-view.js';
import { ProfileInputSchema, resolveProfile } from '../profile.js';
import { readJson, stalledMessage } from './json-body.js';
import { decodeSegment, describeIssues } from './params.js';
import { sendError, sendJson } from './reply.js';

const ADMIN_BODY_LIMIT = 1024 * 1024;
const AdvanceSchema = z.strictObject({
  ms: z
    .number()
    .nonnegative()
    .max(400 * 24 * 3600 * 1000),
});

/** One line per route, served at GET /_emulator/ so the API describes itself. */
export const ADMIN_ROUTES = [
  'GET    /_emulator/state                       clock, faults, profile, endpoint summaries',
  'POST   /_emulator/clock/advance  {"ms":N}     move a manual clock forward (timers fire in order)',
  'GET    /_emulator/endpoints                   every endpoint with health, workers, rate-limit windows',
  'GET    /_emulator/endpoints/:id               one endpoint',
  'GET    /_emulator/endpoints/:id/jobs/:jobId   one job with its internal times and webhook attempts',
  'GET    /_emulator/faults                      every fault: name, description, enabled, value',
  'PUT    /_emulator/faults  ["name", "server-errors=0.2"] or {"name": true|false|value}',
  'DELETE /_emulator/faults                      switch every fault off',
  'DELETE /_emulator/faults/:name                switch one fault off',
  'GET    /_emulator/profile                     the handler profile',
  'PUT    /_emulator/profile  "name" or {duration, failureRate, ...}',
  'GET    /_emulator/webhooks[?jobId=]           webhook deliveries and their attempts; pending = attempts awaiting an answer',
];

/** One admin request: the path's segments after `/_emulator/`, decoded. */
interface AdminCall {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  segments: string[];
  query: string;
}

type AdminHandler = (c: AdminCall) => Promise<void> | void;

/** A route: methods ('*' for any) and a pattern (':x' one segment, '*' the rest). */
interface AdminRoute {
  methods: readonly string[];
  pattern: readonly string[];
  answer: AdminHandler;
}

function matches(pattern: readonly string[], segments: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    if (p === '*') return true;
    const s = segments[i];
    if (s === undefined || (!p.startsWith(':') && p !== s)) return false;
  }
  return pattern.length === segments.length;
}

const FAULT_ROUTES = 'fault routes: GET|PUT|DELETE /_emulator/faults, DELETE /_emulator/faults/:name';

/**
 * `/_emulator/...`: control and inspection for tests and the runner, with the same key as the API.
 * This is how ttl, retention and webhook-retry scenarios run in seconds on a manual clock.
 */
export class AdminRoutes {
  /** The first route that matches answers. */
  private readonly routes: AdminRoute[];

  constructor(
    private readonly core: EmulatorCore,
    private readonly onAdvance: (now: number) => void,
  ) {
    const r = (methods: string, pattern: string, answer: AdminHandler): AdminRoute => ({
      methods: methods.split('|'),
      pattern: pattern === '' ? [] : pattern.split('/'),
      answer,
    });
    this.routes = [
      r('GET', '', (c) => sendJson(c.res, 200, { routes: ADMIN_ROUTES })),
      r('GET', 'state', (c) => sendJson(c.res, 200, this.state())),
      r('POST', 'clock/advance', (c) => this.advance(c.req, c.res)),
      r('GET', 'endpoints', (c) =>
        sendJson(c.res, 200, { endpoints: [...this.core.endpoints.values()].map((ep) => ep.snapshot()) }),
      ),
      r('GET', 'endpoints/:id', (c) => this.withEndpoint(c, (ep) => sendJson(c.res, 200, ep.snapshot()))),
      r('GET', 'endpoints/:id/jobs/:job', (c) => this.withEndpoint(c, (ep) => this.job(c, ep))),
      r('GET', 'endpoints/:id/*', (c) => this.withEndpoint(c, () => this.noRoute(c))),
      r('GET', 'faults', (c) => sendJson(c.res, 200, { faults: this.core.faults.list() })),
      r('DELETE', 'faults', (c) => this.clearFaults(c, undefined)),
      r('DELETE', 'faults/:name', (c) => this.clearFaults(c, c.segments[1])),
      r('PUT|POST', 'faults', (c) => this.setFaults(c)),
      r('*', 'faults/*', (c) => sendError(c.res, 404, FAULT_ROUTES)),
      r('GET', 'profile', (c) => sendJson(c.res, 200, this.core.profile())),
      r('PUT', 'profile', (c) => this.setProfile(c.req, c.res)),
      r('GET', 'webhooks', (c) => this.webhooks(c)),
    ];
  }

  /** Answers the request; the promise settles when the answer is over (the server catches its errors). */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> {
    const parts = path.split('/').slice(2);
    if (parts[parts.length - 1] === '') parts.pop();
    const segments = parts.map((p) => decodeSegment(p) ?? '');
    const m = req.method ?? '';
    const route = this.routes.find(
      (rt) => (rt.methods.includes(m) || rt.methods.includes('*')) && matches(rt.pattern, segments),
    );
    const c: AdminCall = { req, res, path, segments, query };
    if (route === undefined) this.noRoute(c);
    else await route.answer(c);
  }

  private noRoute(c: AdminCall): void {
    sendError(
      c.res,
      404,
      `no admin route ${c.req.method ?? ''} ${c.path.slice(0, 200)}; see GET /_emulator/`,
    );
  }

  private withEndpoint(c: AdminCall, answer: (ep: Endpoint) => void): void {
    const id = c.segments[1] ?? '';
    const ep = this.core.endpoints.get(id);
    if (ep === undefined) sendError(c.res, 404, `endpoint ${JSON.stringify(id)} not found`);
    else answer(ep);
  }

  private job(c: AdminCall, ep: Endpoint): void {
    const id = c.segments[3] ?? '';
    const job = ep.get(id);
    if (job === undefined) {
      sendError(c.res, 404, `job ${JSON.stringify(id)} not found`);
      return;
    }
    sendJson(c.res, 200, {
      view: jobView(job, this.core.policy),
      queuedAt: job.queuedAt,
      startedAt: job.startedAt,
      finishedAt: job.finishedAt,
      ttlAt: job.ttlAt,
      expiresAt: job.expiresAt,
      durationMs: job.durationMs,
      executionTimeout: job.executionTimeout,
      sync: job.sync,
      lowPriority: job.lowPriority,
      input: echoedInput(job),
      webhook: job.webhook ?? null,
      webhooks: this.core.webhooks.deliveries(job.id),
    });
  }

  private webhooks(c: AdminCall): void {
    const jobId = c.query === '' ? null : new URLSearchParams(c.query).get('jobId');
    sendJson(c.res, 200, {
      pending: this.core.webhooks.pending,
      deliveries: this.core.webhooks.deliveries(jobId ?? undefined),
    });
  }

  private state(): Record<string, unknown> {
    const clock = this.core.clock;
    return {
      now: this.core.now(),
      clock: clock instanceof ManualClock ? 'manual' : 'real',
      faults: this.core.faults.enabled(),
      profile: this.core.profile(),
      streamShape: this.core.config.streamShape,
      pods: [...this.core.pods],
      endpoints: [...this.core.endpoints.values()].map((ep) => ({
        id: ep.id,
        publicModel: ep.settings.publicModel,
        health: ep.health(),
      })),
      webhooksPending: this.core.webhooks.pending,
      bugs: this.core.bugs,
    };
  }

  private async advance(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const clock = this.core.clock;
    if (!(clock instanceof ManualClock))
      return sendError(res, 409, 'the clock is real; start the emulator with clock "manual" to advance it');
    const body = await this.body(req, res, AdvanceSchema);
    if (body === undefined) return;
    clock.advance(body.ms);
    const now = this.core.now();
    this.onAdvance(clock.now());
    sendJson(res, 200, { now });
  }

  private clearFaults(c: AdminCall, name: string | undefined): void {
    const faults = this.core.faults;
    if (name !== undefined && !isFaultName(name)) {
      sendError(
        c.res,
        404,
        `unknown fault ${JSON.stringify(name)}; known: ${Object.keys(FAULTS).join(', ')}`,
      );
      return;
    }
    faults.clear(name);
    sendJson(c.res, 200, { faults: faults.enabled() });
  }

  private async setFaults(c: AdminCall): Promise<void> {
    const input = await this.body(c.req, c.res, FaultsInputSchema);
    if (input === undefined) return;
    const parsed = parseFaults(input, 'faults');
    if (parsed.issues.length > 0) {
      sendError(c.res, 400, parsed.issues.map((i) => i.message).join('; '));
      return;
    }
    const faults = this.core.faults;
    for (const [n, v] of parsed.faults) faults.set(n, v);
    sendJson(c.res, 200, { faults: faults.enabled() });
  }

  private async setProfile(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const input = await this.body(req, res, ProfileInputSchema);
    if (input === undefined) return;
    this.core.setProfile(resolveProfile(input));
    sendJson(res, 200, this.core.profile());
  }

  private async body<T>(
    req: IncomingMessage,
    res: ServerResponse,
    schema: z.ZodType<T>,
  ): Promise<T | undefined> {
    const body = await readJson(req, ADMIN_BODY_LIMIT, this.core.config.bodyTimeoutMs);
    if (body.kind === 'aborted') return undefined;
    if (body.kind === 'stalled') {
      sendError(res, 408, stalledMessage(body.ms), { connection: 'close' });
      return undefined;
    }
    if (body.kind === 'too-large') {
      sendError(res, 413, `admin body over ${String(ADMIN_BODY_LIMIT)} bytes`, { connection: 'close' });
      return undefined;
    }
    if (body.kind === 'invalid') {
      sendError(res, 400, body.message);
      return undefined;
    }
    const parsed = schema.safeParse(body.value);
    if (!parsed.success) {
      sendError(res, 400, describeIssues(parsed.error.issues));
      return undefined;
    }
    return parsed.data;
  }
}
