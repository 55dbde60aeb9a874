import { isFinalStatus } from '../core/job-status.js';
import type { Operation } from '../core/operation.js';
import type { ExchangeRecord, JobstormRecord, WebhookRecord } from '../core/record.js';
import type { JobEvents } from '../fold/job-events.js';
import type { JobBook, JobState } from './job-book.js';

type Answer = (book: JobBook, job: JobState, r: ExchangeRecord, ev: JobEvents) => void;

/** A delivery's status as its body gave it, a job state or not (the webhook checks judge it). */
const statusOf = (body: unknown): unknown => (body as { status?: unknown } | undefined)?.status;

/**
 * The fold opened the job with this submission. A job is submitted once: a later opening of the
 * same id (the fold forgets closed jobs; a warm-up job opened again) is not a second submission.
 */
function submitted(book: JobBook, job: JobState, r: ExchangeRecord, ev: JobEvents): void {
  if (ev.opened !== 'submit' || ev.reopened || job.submittedAt !== undefined) return;
  job.via = r.op === 'runsync' ? 'runsync' : 'run';
  job.submittedAt = r.sentAt;
  job.acceptedAt = r.endAt;
  job.ttl = r.req?.ttl;
  job.executionTimeout = r.req?.executionTimeout;
  job.webhook = r.req?.webhook !== undefined;
  if (r.req?.webhook === undefined) return;
  for (const early of book.webhookOwners.own(r.req.webhook, job.id)) deliverTo(book, job, early);
}

function deliverTo(book: JobBook, job: JobState, r: WebhookRecord): void {
  book.deliver(job, { at: r.at, answered: r.answered, status: statusOf(r.body), record: r });
}

/** What a 200 of each operation tells of its job besides the status it shows. */
const ON_ANSWER: Partial<Record<Operation, Answer>> = {
  run: submitted,
  runsync: submitted,
  cancel: (book, job, r, ev) => {
    book.action(job, r, 'cancel');
    if (ev.shown === 'CANCELLED') job.cancelAnsweredCancelled = true;
  },
  retry: (book, job, r) => book.action(job, r, 'retry'),
};

function delivered(book: JobBook, r: WebhookRecord): void {
  // A body that names no job is read by its URL (the run adapts); a strict run's is no job's.
  const id = r.jobId ?? (r.adaptedShape === 'no-id' ? book.webhookOwners.ownerOf(r) : undefined);
  if (id === undefined) return;
  deliverTo(book, book.touch(id), r);
}

/** A purge may have cancelled any job not yet final when it was sent. */
function purged(book: JobBook, r: ExchangeRecord): void {
  for (const job of book.drainView()) {
    if (!isFinalStatus(job.last)) book.action(job, r, 'purge');
  }
}

function answered(book: JobBook, r: ExchangeRecord, status: number, ev: JobEvents): void {
  const id = ev.jobId;
  if (id === undefined) return;
  const job = book.touch(id);
  if (r.op === 'status' && r.req?.statusTtl !== undefined && status === 200)
    job.ttlDeadline = r.sentAt + r.req.statusTtl;
  if (status !== 200) return;
  // Seen again: a 404 before this was not the job being lost.
  if (r.op !== 'run' && r.op !== 'runsync') job.lostCandidate = undefined;
  ON_ANSWER[r.op]?.(book, job, r, ev);
  book.observe(job, r, ev.shown);
  if (isFinalStatus(job.last) && job.finalAt !== undefined) book.holdUntilFinal(job, r.endAt);
}

/**
 * Applies one record to the job book, after the checks saw it: submits, our actions, the statuses
 * shown and webhook deliveries, each job's part of the record stream. What the record did to its
 * job (which job, the state it showed, whether it opened it) comes from the job fold's `ev` for
 * this record, read once for every consumer; the book keeps when (on the target's clock, which
 * `r` is mapped to) and what the checks need beyond the fold: jobs the fold does not follow (never
 * seen submitted, or long closed), times since our last retry, timelines and deliveries.
 */
export function applyToBook(book: JobBook, r: JobstormRecord, ev: JobEvents): void {
  if (r.type === 'webhook') {
    delivered(book, r);
    return;
  }
  if (r.type !== 'exchange' || r.status === undefined) return;
  // Their answers name no job of ours (an OpenAI completion id, a list of requests).
  if (r.op === 'openai' || r.op === 'requests') return;
  if (r.op === 'purge-queue') {
    if (r.status === 200) purged(book, r);
    return;
  }
  answered(book, r, r.status, ev);
}
