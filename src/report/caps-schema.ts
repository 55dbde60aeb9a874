import { z } from 'zod';
import { CAP_IDS } from '../core/run-limits.js';

/** `caps` of a summary (Summary['caps']): the caps that dropped detail, with their counts. */
export const capsSchema = z.array(
  z.object({
    id: z.enum(CAP_IDS),
    limit: z.number().int().nonnegative(),
    dropped: z.number().int().nonnegative(),
  }),
);
