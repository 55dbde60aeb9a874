/** `dashboard`'s arguments as parsed: apart from its flags, so dashboard-action.ts imports no cycle. */
export interface DashboardCommandArgs {
  folder: string;
  port?: string;
  host?: string;
}
