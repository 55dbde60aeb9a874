import { defineFault } from './fault.js';

export const streamPostOnly = defineFault(
  'stream-post-only',
  'GET /stream/<id> is answered 405 (Allow: POST) and POST /stream/<id> is served instead, as servers that take every operation by POST do',
  ['request.method'],
  () => ({ streamMethod: () => 'POST' }),
);
