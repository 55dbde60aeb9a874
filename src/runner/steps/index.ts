/*
 * The runner's view of the step kinds (src/steps/): each kind's file holds its runner, and the
 * runner table is derived from their list.
 */
export { reached, runStep, type IterationState, type StepRunner } from '../../steps/index.js';
