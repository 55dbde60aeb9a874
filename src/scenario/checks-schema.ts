import { z } from 'zod';

/** The scenario's `checks:` section (issue 53): read by checks-section.ts. */
export const ChecksSchema = z
  .strictObject({
    skip: z
      .array(
        z.strictObject({
          check: z.string().min(1).describe('A check id, or a glob of ids (auth.*).'),
          why: z.string().trim().min(1).describe('Why it is not run; every report says it.'),
        }),
      )
      .default([])
      .describe(
        'Checks not run: each judges nothing (counted as not exercised) and is listed as skipped, with why, in every report.',
      ),
    known: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A known-deviations file (relative to the scenario file): findings an entry matches are shown and counted as known and do not fail the run (docs/checks.md#known-deviations).',
      ),
  })
  .optional()
  .describe('Checks to skip and deviations to accept for now.');
