export { runJobstorm } from './run-jobstorm.js';
export type { JobstormRun, RunJobstormOptions } from './library-options.js';
export { startEmbeddedTarget, type EmbeddedTarget, type EmbeddedOptions } from './embedded-target.js';
export { remoteTarget, type RemoteChoice, type RouteLayout } from './remote-target.js';
