import type { ExportKind } from '../core/export-kind.js';
import type { MetricSnapshot } from './metric-snapshot.js';

export { EXPORT_KINDS, type ExportKind } from '../core/export-kind.js';

/** Where one live export goes. Headers (auth) come from the environment and are never reported. */
export interface ExportTarget {
  kind: ExportKind;
  url: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * One backend's wire: turns a snapshot into its protocol and sends it. `send` rejects on any failure
 * (refused, timeout, non-2xx); the caller counts it and the run goes on.
 */
export interface MetricSender {
  readonly kind: ExportKind;
  send(snapshot: MetricSnapshot, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}
