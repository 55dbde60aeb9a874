import type { DashboardArgs } from '../run/dashboard-flags.js';
import type { ExportArgs } from '../run/export-settings.js';
import type { KnownArgs } from '../known-flags.js';

/** `run`'s arguments as parsed: apart from its flags, so run-action.ts imports no cycle. */
export interface RunArgs extends ExportArgs, DashboardArgs, KnownArgs {
  scenario: string;
  target?: string;
  'api-key'?: string;
  'management-url'?: string;
  auth?: 'bearer' | 'bare' | 'none';
  routes?: 'v2' | 'root';
  duration?: string;
  warmup?: string;
  'rate-scale'?: number;
  shard?: string;
  workers?: number;
  out?: string;
  record?: boolean;
  threshold?: string[];
  openapi?: string;
  fault?: string[];
  check?: boolean;
  quiet?: boolean;
  tolerance?: string[];
  'exclusive-endpoint'?: boolean;
  strict?: boolean;
  preflight?: boolean;
  worker?: string;
  'graceful-stop'?: string;
  barrier?: string;
  'barrier-timeout'?: string;
  'start-at'?: string;
  'local-address'?: string;
}
