import type { Operation } from '../core/operation.js';

/** A quick call (status, cancel, health...): a healthy endpoint answers in well under a second. */
export const QUICK_TIMEOUT_MS = 10_000;
/** `/run` carries the input: a large upload on a slow link needs longer. */
export const SUBMIT_TIMEOUT_MS = 30_000;
/** The `wait` a long-polling call holds when none is given (SPEC: /runsync wait defaults to 90 s). */
export const DEFAULT_WAIT_MS = 90_000;
/** What a long poll may take beyond its wait: the answer still has to travel. */
export const WAIT_GRACE_MS = 10_000;

/**
 * The request timeout that fits an operation when the scenario sets none: a stalled target shows
 * up as `/status` timeouts after seconds, not 30 s, while `/runsync` and `/status-sync` still get
 * their whole `wait`.
 */
export function operationTimeoutMs(op: Operation, waitMs: number | undefined): number {
  switch (op) {
    case 'runsync':
    case 'status-sync':
      return (waitMs ?? DEFAULT_WAIT_MS) + WAIT_GRACE_MS;
    case 'run':
    case 'StartPod':
    case 'CreateEndpoint':
      return SUBMIT_TIMEOUT_MS;
    default:
      return QUICK_TIMEOUT_MS;
  }
}
