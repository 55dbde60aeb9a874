/**
 * jobstorm's programmatic API: everything the CLI does, as functions (DESIGN "Layout"). Start with
 * `runJobstorm` (docs/library.md); `RunSession` is the one run it and the CLI are built on.
 */
export {
  runJobstorm,
  startEmbeddedTarget,
  type JobstormRun,
  type RunJobstormOptions,
  type EmbeddedTarget,
  type EmbeddedOptions,
} from './library/index.js';
export {
  RunSession,
  checkRecordsFile,
  type RunSessionOptions,
  type SessionSinks,
  type SessionExports,
  type ExportSink,
  type CheckSettings,
  type LiveView,
  type FinishOptions,
} from './session/index.js';
export * from './core/index.js';
export * from '../contracts/index.js';
export {
  defineScenario,
  loadScenario,
  parseScenario,
  scenarioJsonSchema,
  fitDuration,
  scaleRates,
} from './scenario/index.js';
export type { Scenario, Flow, Step, Phase } from './scenario/scenario.js';
export { arrivalSchedule, type ArrivalSchedule } from './schedule/index.js';
export { JobClient, createJobClient, type JobClientOptions } from './client/index.js';
export { blast, type BlastOptions, type BlastResult } from './blast/index.js';
export { runScenario } from './runner/runner.js';
export { runScenarioThreaded } from './runner/threaded-run.js';
export type { RunOptions, RunOutcome, Target, ShardSpec, ProgressSnapshot } from './runner/run-options.js';
export {
  Checker,
  CHECK_CATALOG,
  loadOpenApiRules,
  readRecords,
  type CheckResult,
  type ViolationGroup,
} from './check/index.js';
export { RunMetrics } from './metrics/index.js';
export {
  LiveExports,
  METRICS,
  type LiveExportsOptions,
  type ExportStats,
  type ExportTarget,
  type ExportKind,
} from './export/index.js';
export {
  buildSummary,
  mergeSummaries,
  parseThresholds,
  writeReports,
  renderTerminalSummary,
  readSummary,
  type Summary,
} from './report/index.js';
export {
  startEmulator,
  startEmulatorInWorker,
  FAULTS,
  type EmulatorHandle,
  type EmulatorOptions,
} from './emulator/index.js';
export { findCapacity, writeCapacityReports, type CapacityReport } from './capacity/index.js';
export {
  compareRuns,
  parseGates,
  writeComparison,
  readRun,
  type Comparison,
  type CompareOptions,
} from './compare/index.js';
