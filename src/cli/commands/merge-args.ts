/** `merge`'s arguments as parsed: apart from its flags, so merge-action.ts imports no cycle. */
export interface MergeArgs {
  dirs?: string[];
  out?: string;
  threshold?: string[];
  force?: boolean;
}
