import type { DashboardArgs } from '../run/dashboard-flags.js';
import type { SearchMode } from '../../capacity/search-mode.js';
import type { ExportArgs } from '../run/export-settings.js';

/** `capacity`'s arguments as parsed: apart from its flags, so capacity-action.ts imports no cycle. */
export interface CapacityArgs extends ExportArgs, DashboardArgs {
  scenario: string;
  target?: string;
  'api-key'?: string;
  'management-url'?: string;
  slo?: string[];
  start?: number;
  factor?: number;
  increment?: number;
  max?: number;
  'step-duration'?: string;
  warmup?: string;
  mode?: SearchMode;
  resolution?: number;
  out?: string;
  quiet?: boolean;
  worker?: string;
  strict?: boolean;
}
