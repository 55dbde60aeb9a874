import { bodyField } from '../fold/job-body.js';

/** `/health` body: `workers.running` and `jobs.inQueue`, when present (defensive, as every body read). */
export function healthGauge(body: unknown, group: 'workers' | 'jobs', key: string): number | undefined {
  const v = bodyField(bodyField(body, group), key);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
