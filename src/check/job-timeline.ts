import { JOB_STATUSES, statusFromNumber, statusNumber, type JobStatus } from '../core/job-status.js';
import { OPERATIONS } from '../core/operation.js';
import type { TimelineEntry } from '../core/violation.js';
import { ACTION_OBSERVATION, STATUS_OBSERVATION, type Observation } from '../../contracts/queue/states.js';

/**
 * A job's timeline as the book keeps it: pairs of numbers, `[at, code, at, code, …]`, in one
 * array of unboxed doubles. The book holds thousands of jobs for seconds, and under load they are
 * most of what the old generation holds: kept as entry objects, each entry was an object and a
 * boxed `at`, three heap objects per observation that every mark-compact had to trace and move,
 * and on one core that marking is what stalls the event loop (issue 17). Packed, a timeline is two
 * objects whatever its length, and entries are made only for the evidence of a finding.
 */
export type PackedTimeline = readonly number[];

/** Shared by every job with no entry yet; `appendEntry` never adds to it. */
export const EMPTY_TIMELINE: PackedTimeline = [];

/** At most this many entries: the first, and the latest. */
export const TIMELINE_MAX = 64;
/** Timelines this short grow by copy, not push (see `appendEntry`). */
const TIMELINE_SHORT = 16;

const OPS: readonly TimelineEntry['op'][] = [...OPERATIONS, 'webhook'];
const OP_CODE = new Map<string, number>(OPS.map((op, i) => [op, i]));
/** A code is op * STATUS_SPAN + statusNumber(status). */
const STATUS_SPAN = JOB_STATUSES.length + 1;

function codeOf(op: TimelineEntry['op'], status: JobStatus | undefined): number {
  const o = OP_CODE.get(op);
  if (o === undefined) throw new Error(`timeline: no code for operation ${op}`);
  return o * STATUS_SPAN + statusNumber(status);
}

function opOf(code: number): TimelineEntry['op'] {
  return OPS[Math.floor(code / STATUS_SPAN)] ?? 'webhook';
}

function statusOf(code: number): JobStatus | undefined {
  return statusFromNumber(code % STATUS_SPAN);
}

/**
 * The timeline with one more entry. A short one is a new array the size of its entries (push on a
 * short array reserves 17 slots, and so does a spread; concat makes it exact); a longer one grows
 * in place and keeps its first entry and the latest. Whoever needs it as it was copies it. The
 * first `head` numbers of `t` are not entries but are kept with it (a job's times, job-state.ts).
 */
export function appendEntry(
  t: PackedTimeline,
  at: number,
  op: TimelineEntry['op'],
  status?: JobStatus,
  head = 0,
): number[] {
  const code = codeOf(op, status);
  if (t.length < head + 2 * TIMELINE_SHORT) return t.length === 0 ? [at, code] : t.concat(at, code);
  const grown = t as number[];
  grown.push(at, code);
  if (grown.length > head + 2 * TIMELINE_MAX) grown.splice(head + 2, grown.length - head - 2 * TIMELINE_MAX);
  return grown;
}

/** The entries, made afresh: the evidence a finding cites. */
export function entriesOf(t: PackedTimeline): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (let i = 0; i + 1 < t.length; i += 2) {
    const at = t[i] ?? 0;
    const code = t[i + 1] ?? 0;
    const status = statusOf(code);
    // No status key when there is none (timeline-entries.test compares with toStrictEqual).
    out.push(status === undefined ? { at, op: opOf(code) } : { at, op: opOf(code), status });
  }
  return out;
}

/** A job's observations as the transition table sees them, rebuilt from its timeline. */
export function observationsIn(t: PackedTimeline): Observation[] {
  const out: Observation[] = [];
  for (let i = 1; i < t.length; i += 2) {
    const code = t[i] ?? 0;
    const status = statusOf(code);
    if (status !== undefined) {
      out.push(STATUS_OBSERVATION[status]);
      continue;
    }
    const op = opOf(code);
    if (op === 'cancel') out.push(ACTION_OBSERVATION.cancel);
    else if (op === 'retry') out.push(ACTION_OBSERVATION.retry);
    else if (op === 'purge-queue') out.push(ACTION_OBSERVATION.purge);
  }
  return out;
}
