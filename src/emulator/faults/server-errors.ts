import { defineFault } from './fault.js';

/** The fraction of 500s when the fault is switched on without a value. */
const DEFAULT_FRACTION = 0.1;

export const serverErrors = defineFault(
  'server-errors',
  'a fraction (the value, default 0.1) of /v1 and /v2 requests answer 500 before doing anything',
  ['server.error'],
  (base, fraction) => ({
    serverError: (rng) =>
      rng.next() < fraction ? 'internal server error (emulator fault server-errors)' : base.serverError(rng),
  }),
  DEFAULT_FRACTION,
);
