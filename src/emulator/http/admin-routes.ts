import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ManualClock } from '../../core/manual-clock.js';
import type { EmulatorCore } from '../emulator-core.js';
import { FaultsInputSchema, FAULTS, isFaultName, parseFaults } from '../faults.js';
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

/**
 * `/_emulator/...`: control and inspection for tests and the runner, with the same key as the API.
 * This is how ttl, retention and webhook-retry scenarios run in seconds on a manual clock.
 */
export class AdminRoutes {
  constructor(
    private readonly core: EmulatorCore,
    private readonly onAdvance: (now: number) => void,
  ) {}

  /** Answers the request; the promise settles when the answer is over (the server catches its errors). */
  handle(req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> {
    return this.route(req, res, path, query);
  }

  private async route(req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> {
    const parts = path.split('/').slice(2);
    if (parts[parts.length - 1] === '') parts.pop();
    const [a, b, c, d] = parts.map((p) => decodeSegment(p) ?? '');
    const m = req.method;
    if (m === 'GET' && a === undefined) return sendJson(res, 200, { routes: ADMIN_ROUTES });
    if (m === 'GET' && a === 'state' && b === undefined) return sendJson(res, 200, this.state());
    if (m === 'POST' && a === 'clock' && b === 'advance' && c === undefined) return this.advance(req, res);
    if (m === 'GET' && a === 'endpoints' && b === undefined) {
      return sendJson(res, 200, { endpoints: [...this.core.endpoints.values()].map((ep) => ep.snapshot()) });
    }
    if (m === 'GET' && a === 'endpoints' && b !== undefined) {
      const ep = this.core.endpoints.get(b);
      if (ep === undefined) return sendError(res, 404, `endpoint ${JSON.stringify(b)} not found`);
      if (c === undefined) return sendJson(res, 200, ep.snapshot());
      if (c === 'jobs' && d !== undefined && parts.length === 4) {
        const job = ep.get(d);
        if (job === undefined) return sendError(res, 404, `job ${JSON.stringify(d)} not found`);
        return sendJson(res, 200, {
          view: jobView(job, this.core.faults),
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
    }
    if (a === 'faults') return this.faults(req, res, m, b, parts.length);
    if (a === 'profile' && b === undefined) {
      if (m === 'GET') return sendJson(res, 200, this.core.profile());
      if (m === 'PUT') return this.setProfile(req, res);
    }
    if (m === 'GET' && a === 'webhooks' && b === undefined) {
      const jobId = query === '' ? null : new URLSearchParams(query).get('jobId');
      return sendJson(res, 200, {
        pending: this.core.webhooks.pending,
        deliveries: this.core.webhooks.deliveries(jobId ?? undefined),
      });
    }
    sendError(res, 404, `no admin route ${m ?? ''} ${path.slice(0, 200)}; see GET /_emulator/`);
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

  private async faults(
    req: IncomingMessage,
    res: ServerResponse,
    m: string | undefined,
    name: string | undefined,
    depth: number,
  ): Promise<void> {
    const faults = this.core.faults;
    if (m === 'GET' && depth === 1) return sendJson(res, 200, { faults: faults.list() });
    if (m === 'DELETE' && depth === 1) {
      faults.clear();
      return sendJson(res, 200, { faults: faults.enabled() });
    }
    if (m === 'DELETE' && depth === 2 && name !== undefined) {
      if (!isFaultName(name))
        return sendError(
          res,
          404,
          `unknown fault ${JSON.stringify(name)}; known: ${Object.keys(FAULTS).join(', ')}`,
        );
      faults.clear(name);
      return sendJson(res, 200, { faults: faults.enabled() });
    }
    if ((m === 'PUT' || m === 'POST') && depth === 1) {
      const input = await this.body(req, res, FaultsInputSchema);
      if (input === undefined) return;
      const parsed = parseFaults(input, 'faults');
      if (parsed.issues.length > 0)
        return sendError(res, 400, parsed.issues.map((i) => i.message).join('; '));
      for (const [n, v] of parsed.faults) faults.set(n, v);
      return sendJson(res, 200, { faults: faults.enabled() });
    }
    sendError(res, 404, 'fault routes: GET|PUT|DELETE /_emulator/faults, DELETE /_emulator/faults/:name');
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
