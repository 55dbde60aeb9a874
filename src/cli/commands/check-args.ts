import type { KnownArgs } from '../known-flags.js';

/** `check`'s arguments as parsed: apart from its flags, so check-action.ts imports no cycle. */
export interface CheckArgs extends KnownArgs {
  records: string;
  openapi?: string;
  json?: boolean;
  tolerance?: string[];
}
