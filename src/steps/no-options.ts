import { z } from 'zod';

/**
 * The payload of a step that takes no options (`{}`, or nothing at all), normalized to `{ kind }`.
 * `description` says what the step does, for editors.
 */
export function noOptions<const K extends string>(kind: K, description: string) {
  return z
    .strictObject({})
    .nullable()
    .describe(description)
    .transform((): { readonly kind: K } => ({ kind }));
}
