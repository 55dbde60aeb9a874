/** `run`'s flags for what is judged and how strictly: `.options(CHECK_OPTIONS)`. */
export const CHECK_OPTIONS = {
  openapi: {
    type: 'string',
    describe: 'also check management answers against this OpenAPI document',
  },
  fault: {
    type: 'string',
    array: true,
    describe: 'switch on an emulator fault (embedded emulator only; repeatable)',
  },
  tolerance: {
    type: 'string',
    array: true,
    describe: 'loosen or tighten a check, e.g. clockSkewMs=2000 (repeatable; see docs/reference/checks.md)',
  },
  check: {
    type: 'boolean',
    default: true,
    describe: 'run the contract checks (--no-check to measure raw load)',
  },
  strict: {
    type: 'boolean',
    describe:
      "an operation the target serves to another method than the contract's is reported and no longer sent (default: reported once, then sent the way the target takes it, so its jobs are still followed and judged; overrides the scenario's target.adapt)",
  },
  'exclusive-endpoint': {
    type: 'boolean',
    describe:
      'no other client uses this endpoint: a 429 under the rate limit is then an error, not a warning',
  },
} as const;
