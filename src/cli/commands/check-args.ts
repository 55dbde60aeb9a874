/** `check`'s arguments as parsed: apart from its flags, so check-action.ts imports no cycle. */
export interface CheckArgs {
  records: string;
  openapi?: string;
  json?: boolean;
  tolerance?: string[];
}
