import type { ManualClock } from '../../src/core/manual-clock.js';
import { createRequire } from 'node:module';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * An OTLP/HTTP metrics receiver on loopback. No collector can be installed here, so it decodes with
 * the OpenTelemetry project's own definitions: the protobufjs code generated from
 * opentelemetry-proto that @opentelemetry/otlp-transformer 0.52 shipped (a dev dependency under the
 * alias otlp-proto-definitions). JSON bodies (what @opentelemetry/exporter-metrics-otlp-http sends)
 * are read through the same message type (proto3 JSON mapping) and round-tripped through the binary
 * encoding; protobuf bodies are decoded directly.
 */

interface Message {
  fromObject(o: unknown): unknown;
  toObject(
    m: unknown,
    options: { longs: NumberConstructor; enums: StringConstructor; defaults: boolean },
  ): unknown;
  encode(m: unknown): { finish(): Uint8Array };
  decode(b: Uint8Array): unknown;
}
interface ProtoRoot {
  opentelemetry: { proto: { collector: { metrics: { v1: { ExportMetricsServiceRequest: Message } } } } };
}

const root = createRequire(import.meta.url)(
  'otlp-proto-definitions/build/src/generated/root.js',
) as ProtoRoot;
const Request = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;

export interface KeyValue {
  key: string;
  value: { stringValue?: string; intValue?: number; doubleValue?: number; boolValue?: boolean };
}
export interface NumberPoint {
  attributes: KeyValue[];
  asInt?: number;
  asDouble?: number;
  startTimeUnixNano: number;
  timeUnixNano: number;
}
export interface HistogramDataPoint {
  attributes: KeyValue[];
  count: number;
  sum?: number;
  bucketCounts: number[];
  explicitBounds: number[];
}
export interface OtlpMetric {
  name: string;
  unit: string;
  sum?: { dataPoints: NumberPoint[]; aggregationTemporality: string; isMonotonic: boolean };
  gauge?: { dataPoints: NumberPoint[] };
  histogram?: { dataPoints: HistogramDataPoint[]; aggregationTemporality: string };
}
export interface ExportRequest {
  resourceMetrics: {
    resource: { attributes: KeyValue[] };
    scopeMetrics: { scope: { name: string }; metrics: OtlpMetric[] }[];
  }[];
}

export interface Received {
  contentType: string;
  headers: IncomingHttpHeaders;
  request: ExportRequest;
}

export interface OtlpReceiver {
  url: string;
  received: Received[];
  /** Every metric of the latest request, by name. */
  latest(): Map<string, OtlpMetric>;
  close(): Promise<void>;
}

function decode(body: Buffer, contentType: string): ExportRequest {
  const message = contentType.includes('json')
    ? Request.decode(Request.encode(Request.fromObject(JSON.parse(body.toString('utf8')))).finish())
    : Request.decode(body);
  return Request.toObject(message, { longs: Number, enums: String, defaults: true }) as ExportRequest;
}

/**
 * A receiver gone after its first export, once `clock` moves on (its answer read by then): a
 * backend that disappears mid-run. `closing()` is its close, once it happened.
 */
export async function receiverGoneAfterFirst(
  clock: ManualClock,
): Promise<{ receiver: OtlpReceiver; closing: () => Promise<void> | undefined }> {
  let closed: Promise<void> | undefined;
  const receiver: OtlpReceiver = await startOtlpReceiver({
    onReceive: (n) => {
      if (n === 1)
        clock.schedule(1, () => {
          closed = receiver.close();
        });
    },
  });
  return { receiver, closing: () => closed };
}

/** `o.onReceive` hears of each export taken, once its answer went out, with how many came so far. */
export async function startOtlpReceiver(
  o: { onReceive?: (received: number) => void } = {},
): Promise<OtlpReceiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const contentType = req.headers['content-type'] ?? '';
      try {
        if (req.method !== 'POST' || req.url !== '/v1/metrics')
          throw new Error(`unexpected ${req.method ?? ''} ${req.url ?? ''}`);
        received.push({
          contentType,
          headers: req.headers,
          request: decode(Buffer.concat(chunks), contentType),
        });
        const n = received.length;
        res.once('finish', () => o.onReceive?.(n));
        res
          .writeHead(200, {
            'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf',
          })
          .end(contentType.includes('json') ? '{}' : '');
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/v1/metrics`,
    received,
    latest() {
      const last = received.at(-1);
      const out = new Map<string, OtlpMetric>();
      for (const rm of last?.request.resourceMetrics ?? [])
        for (const sm of rm.scopeMetrics) for (const m of sm.metrics) out.set(m.name, m);
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function attribute(point: { attributes: KeyValue[] }, key: string): string | number | undefined {
  const kv = point.attributes.find((a) => a.key === key);
  return kv?.value.stringValue ?? kv?.value.intValue;
}
