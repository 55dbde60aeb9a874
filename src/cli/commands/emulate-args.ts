/** `emulate`'s arguments as parsed: apart from its flags, so emulate-action.ts imports no cycle. */
export interface EmulateArgs {
  host: string;
  port: number;
  'api-key'?: string;
  endpoint?: string[];
  'workers-min'?: number;
  'workers-max'?: number;
  'requests-per-worker'?: number;
  profile?: string;
  clock: string;
  fault?: string[];
  'stream-shape': string;
  'external-workers'?: boolean;
}
