import { ValueType, type Attributes } from '@opentelemetry/api';
import { ExportResultCode, millisToHrTime } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type MetricData,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { INTEGER_ATTRIBUTES, OTEL_ATTRIBUTES, type LabelKey } from './metric-catalog.js';
import type { FamilySnapshot, Labels, MetricSnapshot } from './metric-snapshot.js';
import type { ExportTarget, MetricSender } from './metric-sender.js';

const RESOURCE = resourceFromAttributes({ 'service.name': 'jobstorm' });
const SCOPE = { name: 'jobstorm' };

function isLabelKey(key: string): key is LabelKey {
  return Object.hasOwn(OTEL_ATTRIBUTES, key);
}

function attributes(common: Readonly<Record<string, string>>, labels: Labels): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(common)) out[isLabelKey(k) ? OTEL_ATTRIBUTES[k] : k] = v;
  for (const [k, v] of Object.entries(labels) as [LabelKey, string | undefined][]) {
    if (v !== undefined) out[OTEL_ATTRIBUTES[k]] = INTEGER_ATTRIBUTES.has(k) ? Number(v) : v;
  }
  return out;
}

function metricData(f: FamilySnapshot, s: MetricSnapshot): MetricData {
  const startTime = millisToHrTime(s.startMs);
  const endTime = millisToHrTime(s.atMs);
  const { spec } = f;
  const descriptor = {
    name: spec.otel,
    description: spec.help,
    unit: spec.unit,
    valueType: spec.kind === 'counter' ? ValueType.INT : ValueType.DOUBLE,
  };
  if (spec.kind === 'histogram') {
    return {
      descriptor,
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: f.histograms.map((h) => ({
        startTime,
        endTime,
        attributes: attributes(s.common, h.labels),
        value: { buckets: { boundaries: [...h.bounds], counts: [...h.counts] }, sum: h.sum, count: h.count },
      })),
    };
  }
  const dataPoints = f.values.map((p) => ({
    startTime,
    endTime,
    attributes: attributes(s.common, p.labels),
    value: p.value,
  }));
  if (spec.kind === 'gauge')
    return {
      descriptor,
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.GAUGE,
      dataPoints,
    };
  return {
    descriptor,
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.SUM,
    isMonotonic: true,
    dataPoints,
  };
}

export function toResourceMetrics(snapshot: MetricSnapshot): ResourceMetrics {
  const metrics = snapshot.families
    .filter((f) => f.values.length + f.histograms.length > 0)
    .map((f) => metricData(f, snapshot));
  return { resource: RESOURCE, scopeMetrics: [{ scope: SCOPE, metrics }] };
}

/**
 * OTLP/HTTP through the OpenTelemetry JS SDK's exporter (JSON encoding, as
 * `@opentelemetry/exporter-metrics-otlp-http` sends it). The data points come from our own
 * aggregate as the SDK's `ResourceMetrics`, cumulative: recording through the SDK's instruments
 * costs about 5 µs a record, our buckets a fraction of that, and the numbers match the other outputs.
 */
export class OtlpSender implements MetricSender {
  readonly kind = 'otlp' as const;
  private readonly exporter: OTLPMetricExporter;

  constructor(target: ExportTarget, timeoutMs: number) {
    this.exporter = new OTLPMetricExporter({
      url: target.url,
      headers: { ...target.headers },
      timeoutMillis: timeoutMs,
    });
  }

  send(snapshot: MetricSnapshot, timeoutMs: number): Promise<void> {
    const metrics = toResourceMetrics(snapshot);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer within ${String(timeoutMs)} ms`)),
        timeoutMs,
      );
      this.exporter.export(metrics, (result) => {
        clearTimeout(timer);
        if (result.code === ExportResultCode.SUCCESS) resolve();
        else reject(result.error ?? new Error('export failed'));
      });
    });
  }

  close(): Promise<void> {
    return this.exporter.shutdown();
  }
}
