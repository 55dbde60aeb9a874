export { RunSession } from './run-session.js';
export { runEndOf } from './run-end.js';
export type * from './session-options.js';
export { runIdFor, runStamp } from './run-id.js';
export { checkRecordsFile } from './records-check.js';
