import type { Clock } from '../core/clock.js';
import type { JobStatus } from '../core/job-status.js';
import type { QueueOperation } from '../core/operation.js';
import type { ExchangeRecord, RequestFacts } from '../core/record.js';
import type { RequestError } from '../core/request-error.js';

/** How a request carries the key: the two forms the service accepts, or on purpose broken. */
export type AuthMode = 'bearer' | 'bare' | 'missing' | 'wrong' | 'none';

/** The two forms a configured client may use for every request (SPEC "Authentication" 2). */
export type AuthForm = 'bearer' | 'bare' | 'none';

/**
 * Retrying 429s (SPEC "Errors": "clients implement retry with exponential backoff"). Each attempt
 * is its own record, so throttling stays visible in the results.
 */
export interface RetryPolicy {
  /** Total tries including the first; 1 means never retry. */
  attempts: number;
  /** Backoff ceiling of the first retry; each later retry doubles it (full jitter below it). */
  baseMs: number;
  /** No wait exceeds this, not even one a `Retry-After` header asks for. */
  maxMs: number;
  /** Uniform [0, 1); injected so tests can pin the jitter. */
  random?: () => number;
}

export interface JobClientOptions {
  /** `{serverless_url}/v2/<endpointId>`; must not carry credentials, a query or a fragment. */
  baseUrl: string;
  /** `{base_url}/v1` of the management API; needed only by `startPod` and `createEndpoint`. */
  managementUrl?: string;
  apiKey: string;
  /** Form of the Authorization header on queue operations; management calls always use bearer. */
  auth: AuthForm;
  /** Keep-alive connections per origin. */
  connections: number;
  /** The local IP address connections leave from (`--local-address`); default: the system's choice. */
  localAddress?: string;
  /**
   * Per request: connect, headers, idle body and the whole exchange each end by this. Left out,
   * each operation gets the timeout that fits it (operation-timeout.ts).
   */
  timeoutMs?: number;
  /**
   * Record times are `clock.now()` readings: hand in a clock whose zero is the run's start
   * (DESIGN "Records").
   */
  clock: Clock;
  retry429?: RetryPolicy;
  onRecord: (record: ExchangeRecord) => void;
  /** Told as each request goes out (its record comes when it ends): requests in flight, for the stall watch. */
  onSend?: () => void;
  /**
   * Told as each request ends, after its record: a connection may be free again (the dispatcher
   * starts arrivals that were waiting for one, see `JobClient.saturated`).
   */
  onSettled?: () => void;
  /**
   * How long jobstorm's event loop had not run at `now` (core/loop-heartbeat.ts): an answer read
   * then may have come in that much earlier, and its record says so.
   */
  loopGapAt?: (now: number) => number;
  /**
   * Told when the pool had to open one of its connections for the first time, for requests
   * waiting meanwhile (see ConnectionOpener): the wait is jobstorm's own, for the generator watch.
   */
  onFirstOpen?: (startedAt: number, endedAt: number) => void;
  /** Stamped on every record unless the call context says otherwise. */
  shard?: string;
  /** Sequence numbers of records; shared with other producers so a run's `seq` is unique. */
  nextSeq?: () => number;
  /**
   * The method to send a queue operation with instead of the contract's, once the target was found
   * to take only that (the run's route watch); each such request is marked `req.adaptedFrom`.
   */
  methodFor?: (op: QueueOperation) => 'GET' | 'POST' | undefined;
}

/** What the caller knows about one call: where it sits in the schedule and in a flow. */
export interface CallContext {
  /** When the schedule meant this request to start; defaults to when it was sent. */
  intendedAt?: number;
  flow?: string;
  step?: string;
  jobId?: string;
  shard?: string;
  /** Facts merged over the ones the client derives itself (auth, wait, ttl, policy...). */
  req?: RequestFacts;
  /** Aborting ends the exchange with an `aborted` record, and stops 429 retries. */
  signal?: AbortSignal;
  /** The arrival's first request: its first try's record is marked (`arrival`). */
  arrival?: boolean;
}

/** Every call's outcome; failures are data, so there is always a record. */
export interface ClientResult {
  record: ExchangeRecord;
  status?: number;
  /**
   * The parsed JSON as received: not trimmed and not validated (the checks judge the record), so
   * it stays `unknown`; a body that is not JSON is kept as its text.
   */
  body?: unknown;
  error?: RequestError;
  /** A streamed answer's text, joined, when the request asked to keep it. */
  streamedText?: string;
}

/** A call about one job: the id and state read from the answer when it has them. */
export interface JobResult extends ClientResult {
  jobId?: string;
  jobStatus?: JobStatus;
}
