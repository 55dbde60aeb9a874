import { LIMITS } from '../../../contracts/queue/limits.js';
import { RETRYABLE } from '../../../contracts/queue/states.js';
import { openAiError } from '../http/openai-error.js';
import { intParam } from '../http/params.js';
import { jobView } from '../job-view.js';
import type { LimiterMode } from '../rate-limiter.js';
import { SPEC_CHUNK_CUT } from './chunk-cut.js';
import type { EmulatorPolicy, LimitRow, OpenAiStreamEnd, SyncWait } from './policy.js';

/** Every row limited as the table says. */
const TABLE_MODE: Readonly<Record<LimitRow, LimiterMode>> = {
  queue: { off: false, early: false, scale: 1 },
  openai: { off: false, early: false, scale: 1 },
  requests: { off: false, early: false, scale: 1 },
};
const SYNC_WAIT: SyncWait = { atEnd: true, factor: 1 };
const STREAM_END: OpenAiStreamEnd = { done: true, chunkAfter: false };

const same = <T>(value: T): T => value;

/** The emulator as the spec and contracts/ say it should be. */
export const FAITHFUL_POLICY: EmulatorPolicy = {
  serverError: () => undefined,
  accepts: (credential) => credential !== 'wrong',
  limiterMode: (row) => TABLE_MODE[row],
  retryAfterHeader: (seconds) => ({ 'retry-after': seconds }),
  answerStatus: same,
  serves: () => true,
  streamMethod: () => 'GET',
  unknownJob: () => undefined,
  // The upper (binary) edge of the contract's size band.
  bodyLimit: (band) => band.surelyRejected - 1,
  waitParam: (query) => intParam(query, 'wait', LIMITS.wait, false),
  submission: same,
  syncWait: () => SYNC_WAIT,

  statusField: same,
  countField: same,
  arrayStream: same,
  requestsList: same,
  messageField: same,
  createdRecord: same,

  timingField: same,
  delayTime: (job) => job.startedAt - job.queuedAt,
  shownStatus: (job) => job.status,
  chunkCut: () => SPEC_CHUNK_CUT,
  streamStart: (_job, from) => from,

  submitted: () => undefined,
  cancelsAtStart: () => false,
  runDuration: same,
  executionLimit: (job) => job.executionTimeout,
  honoursCancel: () => true,
  retryable: (status) => RETRYABLE.includes(status),
  purgesRunning: () => false,
  purgeCount: same,
  retentionEnd: (job) => job.finishedAt + (job.sync ? LIMITS.retentionRunsync : LIMITS.retentionRun),
  ttlExtension: () => 0,

  // SPEC policy object: a lowPriority job "does not trigger worker scaling".
  scalingDemand: (normal) => normal,
  workerCap: same,
  scalesDown: () => true,

  healthCompleted: same,
  healthCompletedRead: same,
  healthInQueue: same,

  sendsWebhook: () => true,
  webhookView: (job, policy) => jobView(job, policy),
  webhookAttempts: () => 1 + LIMITS.webhookRetries,
  webhookRetrySpacing: () => LIMITS.webhookRetrySpacing,
  webhookRepeatAfter: () => undefined,

  openAiErrorBody: (status, message, detail) => openAiError(status, message, detail),
  tokenEvent: (_n, json) => json,
  streamEnd: () => STREAM_END,
};
