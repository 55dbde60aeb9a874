import type { Clock } from '../core/clock.js';
import type { EmulatorPolicy } from './policy/policy.js';
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
  /** Set once a delivered webhook has been sent (or scheduled) again. */
  duplicate?: true;
}

/** Deliveries kept for the admin API; older ones are dropped. */
const LOG_SIZE = 2000;

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
    private readonly rules: { readonly policy: EmulatorPolicy },
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
    const policy = this.rules.policy;
    if (ok || d.duplicate === true) {
      // A delivered webhook the policy repeats is sent once more (never retried).
      d.state = 'delivered';
      const repeatAfter = policy.webhookRepeatAfter();
      if (ok && d.duplicate === undefined && repeatAfter !== undefined && !this.closed) {
        d.duplicate = true;
        this.later(repeatAfter, d, body);
      }
      return;
    }
    if (d.attempts.length >= policy.webhookAttempts() || this.closed) {
      d.state = 'failed';
      return;
    }
    d.state = 'waiting';
    this.later(policy.webhookRetrySpacing(), d, body);
  }

  private later(ms: number, d: WebhookDelivery, body: JsonPayload): void {
    const cancel = this.clock.schedule(ms, () => {
      this.cancels.delete(cancel);
      this.attempt(d, body);
    });
    this.cancels.add(cancel);
  }
}
