import type { ExportKind } from '../core/export-kind.js';
import type { ExportTarget, MetricSender } from './metric-sender.js';

/** One live-export target: how its sender is made. Its name and help texts are core's EXPORT_KIND_TEXT. */
export interface Exporter {
  /**
   * Loads the sender's library on first use: the OpenTelemetry SDK and the remote-write encoder
   * cost every `jobstorm` start about a tenth of a second of CPU, and most runs export nothing.
   */
  create(target: ExportTarget, timeoutMs: number): Promise<MetricSender>;
}

/**
 * Every live-export target, by kind: the one table the sender creation reads, and that a kind
 * without a sender cannot compile past. Adding one: its sender file, its line here and its line in
 * core's EXPORT_KIND_TEXT (the names the scenario and summary schemas validate).
 */
export const EXPORTERS: { readonly [K in ExportKind]: Exporter } = {
  prometheus: { create: async (t) => new (await import('./prometheus-sender.js')).PrometheusSender(t) },
  otlp: { create: async (t, timeoutMs) => new (await import('./otlp-sender.js')).OtlpSender(t, timeoutMs) },
};
