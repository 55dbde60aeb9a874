import { CappedMap } from './capped-map.js';
import { RecentMap } from './recent-map.js';
import type { QueueOperation } from './operation.js';
import type { ExchangeRecord } from './record.js';

/** An operation whose route the target does not serve, with the exchange that shows it. */
export interface MissingRoute {
  op: QueueOperation;
  /** The 404 or 405 answer cited as evidence (a record that was exchanged). */
  record: ExchangeRecord;
  /** Why the answer means "no such route" rather than "no such job". */
  reason: string;
  /**
   * `route`: not served at all (`route.missing`); `method`: served, but not to the method the
   * contract gives it (`request.method`), as a server that takes /status only by POST.
   */
  kind: 'route' | 'method';
  /** For `method`: the method the target does take (the `Allow` header's, or the probe's POST), when known. */
  served?: AdaptedMethod;
}

/** The methods an operation can be adapted to. */
export type AdaptedMethod = 'GET' | 'POST';

export interface RouteWatchOptions {
  /**
   * Go on sending an operation served to another method than the contract's, the way the target
   * takes it (default). False for a strict run: such an operation is no longer sent.
   */
  adapt?: boolean;
}

/**
 * Probe records that are ordinary requests of their operation (the probe's job, and its GETs of
 * that job): the other probes send bad requests on purpose, whose 404s say nothing of routes.
 */
const ROUTE_PROBES = new Set(['request.job', 'request.method', 'request.method.post']);

/** Whether a record is an ordinary request of its operation (no probe, or one of ROUTE_PROBES). */
export function isOrdinaryRequest(r: ExchangeRecord): boolean {
  const probe = r.req?.probe;
  return probe === undefined || ROUTE_PROBES.has(probe);
}

/** The requests probe's POST to a GET route: a wrong method on purpose, judged only by the route watch. */
export const WRONG_METHOD_PROBE = 'request.method.post';

/** Operations about one job, whose 404 may mean "no such job" as well as "no such route". */
const JOB_ROUTES = new Set<QueueOperation>(['cancel', 'retry', 'stream', 'status-sync']);
/** Endpoint-wide operations: a 404 from them, while the endpoint answers others, is a missing route. */
const ENDPOINT_ROUTES = new Set<QueueOperation>(['health', 'purge-queue']);
/** A job operation answering 404 for this many just-accepted jobs, and never anything else, is a missing route. */
const EARLY_404_JOBS = 3;
/** The shortest ttl the contract allows: a job asked for sooner than this after its accept cannot have expired. */
const MIN_LIFE_MS = 10_000;

/**
 * Tells a route the target does not serve from a job it does not have (issue: a missing /cancel
 * must be one finding, not a `lifecycle.lost` per job). Pure and driven by records in order, so the
 * runner (to stop sending the operation) and the checks (to report it once, live or offline)
 * reach the same conclusions from the same stream:
 * - 405 on an operation's own method: served with another method only (the `Allow` header says which);
 * - 404 to the requests probe's GET of a job, while a POST to the same path is answered 2xx: the same;
 * - 404 from /health or /purge-queue while the endpoint answers other operations: missing;
 * - 404 from /cancel, /retry, /stream or /status-sync for a job that a 2xx then shows to exist: missing;
 * - 404 from /status, /cancel, /retry, /stream or /status-sync for the first few jobs, each asked
 *   for within the shortest ttl of its accept, with no 2xx from that operation ever: missing. (The
 *   rule that needs no /status answer: a target whose /status is not sent, a strict run's.)
 * A route that once answered 2xx is served; later 404s from it are about jobs (lifecycle.lost's).
 * An operation served to another method is, unless the watch is strict, sent that way from then on
 * (`methodFor`): the run follows its jobs, and the checks judge what it answers.
 */
export class RouteWatch {
  private readonly served = new Set<QueueOperation>();
  private readonly missing = new Map<QueueOperation, MissingRoute>();
  /** 404s of job routes, by job id, waiting for a sign that the job exists. */
  private readonly suspects = new CappedMap<string, ExchangeRecord[]>(10_000);
  /** Endpoint-wide 404s seen before the endpoint answered anything. */
  private readonly early: ExchangeRecord[] = [];
  /** Per operation: the just-accepted jobs it answered 404 for, and the first such answer. */
  private readonly early404 = new Map<QueueOperation, { jobs: Set<string>; first: ExchangeRecord }>();
  /** The requests probe's GETs answered 404, waiting for the POST to the same path. */
  private readonly refusedGets = new Map<QueueOperation, ExchangeRecord>();
  /** When each recent job was accepted (end of its submit), for the early-404 rule: the latest 10,000 at least. */
  private readonly acceptedAt = new RecentMap<string, number>(10_000);
  private endpointAnswers = false;
  private readonly adapt: boolean;

  constructor(options: RouteWatchOptions = {}) {
    this.adapt = options.adapt ?? true;
  }

  /** Takes one exchange; returns the routes this record shows to be missing (usually none). */
  add(r: ExchangeRecord): MissingRoute[] {
    const probe = r.req?.probe;
    if (r.status === undefined || !isQueueOp(r.op) || !isOrdinaryRequest(r)) return NONE;
    if (r.req?.auth === 'missing' || r.req?.auth === 'wrong') return NONE;
    const op = r.op;
    if (probe === WRONG_METHOD_PROBE) return this.postAnswered(op, r);
    if (probe === 'request.method' && r.status === 404) this.refusedGets.set(op, r);
    if (r.status >= 200 && r.status < 300) return this.answered(r, op);
    if (r.status === 405) return this.refused(op, r);
    if (r.status !== 404 || this.served.has(op) || this.missing.has(op)) return NONE;
    return this.notFound(op, r);
  }

  /** A 405 to the contract's method: served to another one only (an adapted request's 405 shows nothing new). */
  private refused(op: QueueOperation, r: ExchangeRecord): MissingRoute[] {
    if (r.req?.adaptedFrom !== undefined) return NONE;
    return this.found(
      op,
      r,
      `answered 405 Method Not Allowed to ${r.method}${r.allow ? ` (Allow: ${r.allow})` : ' (no Allow header)'}`,
      'method',
      allowedInstead(r),
    );
  }

  /** A 404 from an operation not yet known to be served or missing. */
  private notFound(op: QueueOperation, r: ExchangeRecord): MissingRoute[] {
    if (ENDPOINT_ROUTES.has(op)) {
      if (this.endpointAnswers)
        return this.found(op, r, 'answered 404 while the endpoint answered other operations');
      this.early.push(r);
      return NONE;
    }
    if (JOB_ROUTES.has(op) && r.jobId !== undefined) {
      const list = this.suspects.get(r.jobId);
      if (list) list.push(r);
      else this.suspects.set(r.jobId, [r]);
    }
    return JOB_ROUTES.has(op) || op === 'status' ? this.earlyNotFound(op, r) : NONE;
  }

  /** 404s for the first few accepted jobs, each asked for within the shortest ttl of its accept. */
  private earlyNotFound(op: QueueOperation, r: ExchangeRecord): MissingRoute[] {
    const accepted = r.jobId === undefined ? undefined : this.acceptedAt.get(r.jobId);
    if (r.jobId === undefined || accepted === undefined || r.sentAt - accepted >= MIN_LIFE_MS) return NONE;
    let seen = this.early404.get(op);
    if (!seen) this.early404.set(op, (seen = { jobs: new Set(), first: r }));
    seen.jobs.add(r.jobId);
    if (seen.jobs.size < EARLY_404_JOBS) return NONE;
    this.early404.delete(op);
    return this.found(
      op,
      seen.first,
      `answered 404 for the first ${String(EARLY_404_JOBS)} jobs the endpoint accepted, each asked for within ${String(MIN_LIFE_MS / 1000)} s of its accept, and never anything else`,
    );
  }

  /**
   * The run does not send `op`: its route is missing, or it is served to another method only and
   * the watch does not adapt (strict), or the target did not say which method it takes.
   */
  isMissing(op: string): boolean {
    const m = this.missing.get(op as QueueOperation);
    return m !== undefined && (m.kind === 'route' || this.methodFor(m.op) === undefined);
  }

  /** The method to send `op` with instead of the contract's, once the target was found to take only that. */
  methodFor(op: QueueOperation): AdaptedMethod | undefined {
    if (!this.adapt) return undefined;
    const m = this.missing.get(op);
    return m?.kind === 'method' ? m.served : undefined;
  }

  /**
   * An answer of a method the target was found not to take for this operation (a request sent
   * before that was known): `request.method`'s, reported once, not the contract's status codes.
   */
  refuses(r: ExchangeRecord): boolean {
    if (r.status !== 404 && r.status !== 405) return false;
    const m = this.missing.get(r.op as QueueOperation);
    return m?.kind === 'method' && r.req?.adaptedFrom === undefined && r.method === m.record.method;
  }

  /** The operation answered 2xx at least once. */
  hasServed(op: QueueOperation): boolean {
    return this.served.has(op);
  }

  missingRoutes(): MissingRoute[] {
    return [...this.missing.values()];
  }

  private answered(r: ExchangeRecord, op: QueueOperation): MissingRoute[] {
    this.served.add(op);
    // Only the early-404 rule reads acceptedAt, and only until /status answers 2xx (from then on a
    // /status of the job shows whether it exists): a map entry per job would be garbage that lives
    // long enough to be promoted, thousands a second under load.
    if (!this.served.has('status')) {
      if ((op === 'run' || op === 'runsync') && r.jobId !== undefined) this.acceptedAt.set(r.jobId, r.endAt);
    } else if (this.acceptedAt.size > 0) this.acceptedAt.clear();
    let out = NONE;
    if (!this.endpointAnswers) {
      this.endpointAnswers = true;
      for (const e of this.early.splice(0))
        out = [
          ...out,
          ...this.found(
            e.op as QueueOperation,
            e,
            'answered 404 while the endpoint answered other operations',
          ),
        ];
    }
    // An answer about the job shows it exists: the job routes that said 404 for it do not exist.
    const pending = r.jobId === undefined ? undefined : this.suspects.get(r.jobId);
    if (pending && r.jobId !== undefined) {
      this.suspects.delete(r.jobId);
      const shown = statusOf(r.body);
      for (const s of pending) {
        out = [
          ...out,
          ...this.found(
            s.op as QueueOperation,
            s,
            `answered 404 for job ${r.jobId}, which ${r.op} then showed to exist${shown ? ` (${shown})` : ''}`,
          ),
        ];
      }
    }
    return out;
  }

  /** The POST that follows a refused GET: 2xx shows the route is served, to the wrong method. */
  private postAnswered(op: QueueOperation, post: ExchangeRecord): MissingRoute[] {
    const get = this.refusedGets.get(op);
    this.refusedGets.delete(op);
    if (get === undefined || post.status === undefined || post.status < 200 || post.status >= 300)
      return NONE;
    return this.found(
      op,
      get,
      `answered 404 to GET ${get.path}, while POST to the same path answered ${String(post.status)} (record ${String(post.seq)})`,
      'method',
      'POST',
    );
  }

  private found(
    op: QueueOperation,
    record: ExchangeRecord,
    reason: string,
    kind: MissingRoute['kind'] = 'route',
    served?: AdaptedMethod,
  ): MissingRoute[] {
    if (this.missing.has(op) || this.served.has(op)) return NONE;
    const m: MissingRoute = { op, record, reason, kind, served };
    this.missing.set(op, m);
    return [m];
  }
}

const ADAPTABLE: readonly AdaptedMethod[] = ['POST', 'GET'];

/** The method a 405's `Allow` header offers instead of the one refused, if it names one we can send. */
export function allowedInstead(r: ExchangeRecord): AdaptedMethod | undefined {
  const allowed = (r.allow ?? '').split(',').map((m) => m.trim().toUpperCase());
  return ADAPTABLE.find((m) => m !== r.method && allowed.includes(m));
}

const NONE: MissingRoute[] = [];

function isQueueOp(op: string): op is QueueOperation {
  return op !== 'StartPod' && op !== 'CreateEndpoint';
}

/** The `status` an answer's body names, if it names one. */
export function statusOf(body: unknown): string | undefined {
  const s = (body as { status?: unknown } | null | undefined)?.status;
  return typeof s === 'string' ? s : undefined;
}
