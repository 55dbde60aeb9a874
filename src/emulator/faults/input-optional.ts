import { defineFault } from './fault.js';

/** A submission object without `input` gets an empty one. */
function withInput(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || 'input' in value) return value;
  return { ...value, input: {} };
}

export const inputOptional = defineFault(
  'input-optional',
  'a /run or /runsync body without input is accepted (the job runs with an empty input) instead of answered 400',
  ['request.missing-input'],
  (base) => ({ submission: (body) => base.submission(withInput(body)) }),
);
