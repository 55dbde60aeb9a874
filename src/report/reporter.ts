import type { Summary } from './summary.js';

/**
 * One way of showing a summary (DESIGN rule 6: small interfaces, registered by name). Reporters are
 * pure: they turn a summary into text, and `writeReports` decides where that text goes.
 */
export interface Reporter {
  name: string;
  /** The file it writes in a report folder; undefined for the terminal summary. */
  fileName?: string;
  render(summary: Summary): string;
}
