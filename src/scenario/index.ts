export type { Env } from './env-interpolation.js';
export { DURATION_PATTERN, formatDuration, parseDuration } from './duration.js';
export { parseByteSize } from './byte-size.js';
export {
  compileInput,
  inspectInput,
  renderInput,
  type CompiledInput,
  type RowFieldUse,
  type TemplateContext,
} from './input-template.js';
export { parseDataFeed, rowCursor, type ParsedFeed } from './data-feed.js';
export { scenarioJsonSchema } from './json-schema.js';
export {
  capStepTimeouts,
  fitDuration,
  phaseDurationMs,
  scaleRates,
  totalDurationMs,
  withWarmup,
} from './phase-scaling.js';
export { ARRIVAL_PROCESS_NAMES, type ScenarioInput } from './scenario-schema.js';
export { MAX_LOOP_DEPTH, STEP_NAMES, type StepInput, type StepName } from '../steps/index.js';
export {
  defineScenario,
  loadScenario,
  MODULE_EXTENSIONS,
  TEXT_EXTENSIONS,
  type LoadOptions,
} from './scenario-loader.js';
export { parseScenario, type ParseOptions } from './scenario-parser.js';
export type * from './scenario.js';
export type { WorkerSpec } from './worker-schema.js';
