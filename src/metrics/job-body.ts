import { isFinalStatus, type JobStatus } from '../core/job-status.js';

/**
 * What metrics read from a job body. Bodies are `unknown` (parsed JSON that may violate the
 * contract; the checks report that), so every read is defensive and a malformed body yields nothing.
 */
function field(body: unknown, key: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)[key]
    : undefined;
}

export function bodyJobId(body: unknown): string | undefined {
  const id = field(body, 'id');
  return typeof id === 'string' ? id : undefined;
}

export function bodyFinalStatus(body: unknown): JobStatus | undefined {
  const status = field(body, 'status');
  return isFinalStatus(status) ? (status as JobStatus) : undefined;
}

export function bodyMs(body: unknown, key: 'delayTime' | 'executionTime'): number | undefined {
  const v = field(body, key);
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** Stream chunks: `{stream: [...]}` as real clients read it, or the spec's bare array. */
export function streamChunkCount(body: unknown): number {
  if (Array.isArray(body)) return body.length;
  const stream = field(body, 'stream');
  return Array.isArray(stream) ? stream.length : 0;
}

/** `/health` body: `workers.running` and `jobs.inQueue`, when present. */
export function healthGauge(body: unknown, group: 'workers' | 'jobs', key: string): number | undefined {
  const v = field(field(body, group), key);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
