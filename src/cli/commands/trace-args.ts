/** `trace`'s arguments as parsed: apart from its flags, so trace-action.ts imports no cycle. */
export interface TraceArgs {
  run?: string;
  out?: string;
}
