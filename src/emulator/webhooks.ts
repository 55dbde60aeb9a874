import { LIMITS } from '../../contracts/queue/limits.js';
import type { Clock } from '../core/clock.js';
import type { FaultSet } from './faults.js';
import type { JsonPayload } from './json-payload.js';

/** Sends one POST; resolves with the receiver's status code, rejects on a network error. */
export type WebhookPoster = (url: string, body: JsonPayload) => Promise<number>;

export interface WebhookAttempt {
  /** Emulator time (ms since start) the attempt was sent. */
  at: number;
  status?: number;
  error?: string;
}

export interface WebhookDelivery {
  jobId: string;
  url: string;
  state: 'in-flight' | 'waiting' | 'delivered' | 'failed';
  attempts: WebhookAttempt[];
  /** Set once the webhook-duplicate fault has sent (or scheduled) the second delivery. */
  duplicate?: true;
}

/** Deliveries kept for the admin API; older ones are dropped. */
const LOG_SIZE = 2000;
/** Retry spacing under the webhook-fast-retry fault. */
const FAST_RETRY_SPACING_MS = 1000;
/** When the webhook-duplicate fault sends a delivered webhook again. */
const DUPLICATE_AFTER_MS = 1000;

/**
 * SPEC "Events": on a final state, POST the status body to the job's webhook; a receiver that does
 * not answer 200 gets up to 2 more attempts, 10 s apart. The spacing runs on the injected clock,
 * so a manual clock makes the whole retry sequence take no wall time.
 */
export class WebhookScheduler {
  private readonly log: WebhookDelivery[] = [];
  private inFlight = 0;
  private closed = false;
  private readonly cancels = new Set<() => void>();

  constructor(
    private readonly clock: Clock,
    private readonly now: () => number,
    private readonly post: WebhookPoster,
    private readonly faults: FaultSet,
  ) {}

  deliver(jobId: string, url: string, body: JsonPayload): void {
    const d: WebhookDelivery = { jobId, url, state: 'in-flight', attempts: [] };
    this.log.push(d);
    if (this.log.length > LOG_SIZE) this.log.splice(0, this.log.length - LOG_SIZE);
    this.attempt(d, body);
  }

  deliveries(jobId?: string): WebhookDelivery[] {
    return jobId === undefined ? [...this.log] : this.log.filter((d) => d.jobId === jobId);
  }

  /** Attempts whose answer has not come back yet (tests wait for 0 before moving a manual clock). */
  get pending(): number {
    return this.inFlight;
  }

  close(): void {
    this.closed = true;
    for (const c of this.cancels) c();
    this.cancels.clear();
  }

  private attempt(d: WebhookDelivery, body: JsonPayload): void {
    if (this.closed) return;
    const a: WebhookAttempt = { at: this.now() };
    d.attempts.push(a);
    d.state = 'in-flight';
    this.inFlight++;
    let sent: Promise<number>;
    try {
      sent = this.post(d.url, body);
    } catch (err) {
      // A poster that throws instead of rejecting is still one failed attempt, never a crash.
      sent = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    sent.then(
      (status) => {
        a.status = status;
        this.settle(d, body, status === 200);
      },
      (err: unknown) => {
        a.error = err instanceof Error ? err.message : String(err);
        this.settle(d, body, false);
      },
    );
  }

  private settle(d: WebhookDelivery, body: JsonPayload, ok: boolean): void {
    this.inFlight--;
    if (ok || d.duplicate === true) {
      // webhook-duplicate: a delivered webhook is sent once more, 1 s later (never retried).
      d.state = 'delivered';
      if (ok && d.duplicate === undefined && this.faults.webhookDuplicate && !this.closed) {
        d.duplicate = true;
        this.later(DUPLICATE_AFTER_MS, d, body);
      }
      return;
    }
    const allowed = this.faults.has('no-webhook-retry') ? 1 : 1 + LIMITS.webhookRetries;
    if (d.attempts.length >= allowed || this.closed) {
      d.state = 'failed';
      return;
    }
    d.state = 'waiting';
    this.later(this.faults.webhookFastRetry ? FAST_RETRY_SPACING_MS : LIMITS.webhookRetrySpacing, d, body);
  }

  private later(ms: number, d: WebhookDelivery, body: JsonPayload): void {
    const cancel = this.clock.schedule(ms, () => {
      this.cancels.delete(cancel);
      this.attempt(d, body);
    });
    this.cancels.add(cancel);
  }
}
