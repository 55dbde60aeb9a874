import { isFinalStatus } from '../core/job-status.js';
import type { Operation } from '../core/operation.js';
import type { ExchangeRecord, JobstormRecord, WebhookRecord } from '../core/record.js';
import { jobIdOf } from './job-id.js';
import type { JobBook, JobState } from './job-book.js';

type Answer = (book: JobBook, job: JobState, r: ExchangeRecord) => void;

const statusOf = (body: unknown): unknown => (body as { status?: unknown } | undefined)?.status;

function submitted(book: JobBook, job: JobState, r: ExchangeRecord): void {
  if (job.submittedAt !== undefined || (r.op !== 'run' && r.op !== 'runsync')) return;
  job.via = r.op;
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
  cancel: (book, job, r) => {
    book.action(job, r, 'cancel');
    if (statusOf(r.body) === 'CANCELLED') job.cancelAnsweredCancelled = true;
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

function answered(book: JobBook, r: ExchangeRecord, status: number): void {
  const id = jobIdOf(r);
  if (id === undefined) return;
  const job = book.touch(id);
  if (r.op === 'status' && r.req?.statusTtl !== undefined && status === 200)
    job.ttlDeadline = r.sentAt + r.req.statusTtl;
  if (status !== 200) return;
  // Seen again: a 404 before this was not the job being lost.
  if (r.op !== 'run' && r.op !== 'runsync') job.lostCandidate = undefined;
  ON_ANSWER[r.op]?.(book, job, r);
  book.observe(job, r, r.op === 'stream' && Array.isArray(r.body) ? undefined : statusOf(r.body));
  if (isFinalStatus(job.last) && job.finalAt !== undefined) book.holdUntilFinal(job, r.endAt);
}

/**
 * Folds one record into the job book, after the checks saw it: submits, our actions, the statuses
 * shown and webhook deliveries, each job's part of the record stream.
 */
export function applyToBook(book: JobBook, r: JobstormRecord): void {
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
  answered(book, r, r.status);
}
