/**
 * The emulator: a faithful local twin of the queue-based endpoint API (SPEC.md), for the CLI
 * (`jobstorm emulate`), the runner's default target and every integration test.
 */
export { startEmulator, type EmulatorHandle } from './start.js';
export { startEmulatorInWorker } from './in-worker.js';
export { ProcessGroups } from './external/process-groups.js';
export {
  EmulatorOptionsSchema,
  resolveOptions,
  DEFAULT_PUBLIC_MODELS,
  DEFAULT_WORKER_PING_INTERVAL_MS,
  type EmulatorOptions,
  type EmulatorConfig,
} from './options.js';
export { FAULTS, FAULT_NAMES, isFaultName, type FaultName, type FaultsInput } from './faults.js';
export { PROFILES, ProfileSchema, type HandlerProfile, type HandlerProfileInput } from './profile.js';
export { ADMIN_ROUTES } from './http/admin-routes.js';
export { workerEnvironment, exportBlock } from './external/worker-env.js';
export type { ExternalWorkerStats } from './external/external-worker.js';
export type { ExternalPoolSnapshot } from './external/external-pool.js';
