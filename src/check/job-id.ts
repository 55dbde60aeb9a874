import type { ExchangeRecord } from '../core/record.js';

/** The job an exchange is about: the runner's tag, else the id in a submit's answer. */
export function jobIdOf(r: ExchangeRecord): string | undefined {
  if (r.jobId !== undefined) return r.jobId;
  const id = (r.body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}
