import { defineFault } from './fault.js';

export const authOpen = defineFault(
  'auth-open',
  'any Authorization header, wrong or missing, is accepted on the /v1 and /v2 APIs',
  ['auth.missing-key-accepted', 'auth.wrong-key-accepted'],
  (base) => ({ accepts: (credential) => credential === 'wrong' || base.accepts(credential) }),
);
