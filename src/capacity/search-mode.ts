/**
 * step: raise the rate until a step fails. binary: the same, then halve the interval between the
 * last passing and the first failing rate until it is narrower than `resolution`.
 */
export type SearchMode = 'step' | 'binary';

/** Why a rate was tried: a step up, or a refinement between the last passing and first failing. */
export type SearchStage = 'step' | 'refine';
