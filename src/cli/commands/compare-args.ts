/** `compare`'s arguments as parsed: apart from its flags, so compare-action.ts imports no cycle. */
export interface CompareArgs {
  baseline?: string;
  current?: string;
  gate?: string[];
  scenario?: string;
  significance?: number;
  force?: boolean;
  out?: string;
  seed?: number;
  'job-noise'?: number;
}
