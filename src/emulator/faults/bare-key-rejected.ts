import { defineFault } from './fault.js';

export const bareKeyRejected = defineFault(
  'bare-key-rejected',
  'the bare-key form "Authorization: <key>" is answered 401 on the /v1 and /v2 APIs; Bearer still works',
  ['auth.form-rejected'],
  (base) => ({ accepts: (credential) => credential !== 'bare' && base.accepts(credential) }),
);
