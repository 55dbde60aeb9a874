/** `report`'s arguments as parsed: apart from its flags, so report-action.ts imports no cycle. */
export interface ReportArgs {
  dir?: string;
  out?: string;
  threshold?: string[];
}
