import type { Client, Result } from 'autocannon';
import type { Clock } from '../core/clock.js';
import type { Operation } from '../core/operation.js';
import type { ExchangeRecord, RequestFacts } from '../core/record.js';

export type BlastMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

/** Which response bodies are parsed into records: parsing every 2xx would cost the run its speed. */
export type BlastParse = 'never' | 'non-2xx' | 'always';

export interface BlastOptions {
  /** Target base, e.g. `{serverless_url}/v2/<endpointId>`; no credentials. */
  url: string;
  /** The operation every request is, as records and checks name it. */
  op: Operation;
  method: BlastMethod;
  /** Relative to `url` (`/health`, `/status/<id>`); records show it as given. */
  path: string;
  /** Sent as they are: the caller puts the Authorization header here. */
  headers?: Record<string, string>;
  body?: string | Buffer;
  connections: number;
  /** Run length; ignored when `amount` is given. */
  durationMs?: number;
  /** Stop after this many responses. */
  amount?: number;
  /**
   * Requests per second over all connections; undefined means flat out. This is autocannon's
   * per-second budget: each second's requests start as fast as the budget allows, so give whole
   * seconds as `durationMs` for the rate to come out exact.
   */
  rate?: number;
  pipelining?: number;
  /** Per-response timeout; autocannon's floor is one second. */
  timeoutMs?: number;
  /** Default `non-2xx`: throttling and errors carry their bodies, 2xx answers are not parsed. */
  parse?: BlastParse;
  onRecord: (record: ExchangeRecord) => void;
  clock?: Clock;
  nextSeq?: () => number;
  flow?: string;
  step?: string;
  shard?: string;
  jobId?: string;
  req?: RequestFacts;
  /** Stops the blast early; the result still covers what was sent. */
  signal?: AbortSignal;
  /** Called for each connection before ours hooks in, e.g. to give each its own key. */
  setupClient?: (client: Client) => void;
}

export interface BlastResult {
  /** Responses turned into records. */
  responses: number;
  /** Transport errors turned into records (timeouts, refused connections...). */
  errors: number;
  byStatus: Record<number, number>;
  /** From the start to the end of the run (or to the last response with `amount`), on the blast's clock. */
  elapsedMs: number;
  /** responses per second over `elapsedMs`. */
  achievedRate: number;
  /** autocannon's own summary, for side-by-side comparison. */
  totals: Result;
}
