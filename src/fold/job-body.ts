import { isFinalStatus, isJobStatus, type FinalState, type JobStatus } from '../core/job-status.js';

/**
 * What the job fold reads from a body. Bodies are `unknown` (parsed JSON that may violate the
 * contract; the checks report that), so every read is defensive and a malformed body yields nothing.
 */
export function bodyField(body: unknown, key: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)[key]
    : undefined;
}

export function bodyJobId(body: unknown): string | undefined {
  const id = bodyField(body, 'id');
  return typeof id === 'string' ? id : undefined;
}

/** The job state a body shows, when its `status` is one. */
export function bodyStatus(body: unknown): JobStatus | undefined {
  const status = bodyField(body, 'status');
  return isJobStatus(status) ? status : undefined;
}

export function finalState(status: JobStatus | undefined): FinalState | undefined {
  return isFinalStatus(status) ? (status as FinalState) : undefined;
}

export function bodyMs(body: unknown, key: 'delayTime' | 'executionTime'): number | undefined {
  const v = bodyField(body, key);
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** Stream chunks: `{stream: [...]}` as real clients read it, or the spec's bare array. */
export function streamChunkCount(body: unknown): number {
  if (Array.isArray(body)) return body.length;
  const stream = bodyField(body, 'stream');
  return Array.isArray(stream) ? stream.length : 0;
}
