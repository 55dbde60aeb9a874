/** `fuzz`'s arguments as parsed: apart from its flags, so fuzz-action.ts imports no cycle. */
export interface FuzzArgs {
  seed?: number;
  duration?: string;
  sequences?: number;
  'first-finding'?: boolean;
  fault?: string[];
  target?: string;
  'api-key'?: string;
  'management-url'?: string;
  routes?: 'v2' | 'root';
  'exclusive-endpoint'?: boolean;
  'max-jobs'?: number;
  'max-calls'?: number;
  'shrink-runs'?: number;
  'real-time'?: boolean;
  load?: string;
  out?: string;
  quiet?: boolean;
}
