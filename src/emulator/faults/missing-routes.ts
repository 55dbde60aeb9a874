import { defineFault } from './fault.js';

export const missingRoutes = defineFault(
  'missing-routes',
  'POST /cancel and POST /retry are not served: 404 {"detail":"Not Found"}, as partial implementations of this API answer',
  ['route.missing'],
  (base) => ({ serves: (op) => op !== 'cancel' && op !== 'retry' && base.serves(op) }),
);
