import { pushTimeseries } from 'prometheus-remote-write';
import { Agent, request } from 'undici';
import type { FamilySnapshot, Labels, MetricSnapshot } from './metric-snapshot.js';
import type { ExportTarget, MetricSender } from './metric-sender.js';

/**
 * Prometheus remote write (1.0: snappy-compressed protobuf `WriteRequest`), encoded and posted by the
 * `prometheus-remote-write` library. Histograms go as classic `_bucket{le}`, `_sum` and `_count`
 * series, so `histogram_quantile` works on them as on any client library's.
 */
export class PrometheusSender implements MetricSender {
  readonly kind = 'prometheus' as const;
  /** Its own pool, apart from the run's: one keep-alive connection is all a flush needs. */
  private readonly agent = new Agent({ connections: 1 });

  constructor(private readonly target: ExportTarget) {}

  async send(snapshot: MetricSnapshot, timeoutMs: number): Promise<void> {
    const series = toTimeseries(snapshot);
    const result = await pushTimeseries(series, {
      url: this.target.url,
      headers: {
        'Content-Encoding': 'snappy',
        'X-Prometheus-Remote-Write-Version': '0.1.0',
        'User-Agent': 'jobstorm',
        ...this.target.headers,
      },
      // The library's default fetch is node-fetch, which it does not depend on. Node's own fetch
      // costs several ms of CPU a call on the run's thread; undici's request a fraction of that.
      fetch: async (url, init) => {
        const res = await request(url, {
          method: 'POST',
          headers: init?.headers ?? {},
          body: init?.body ? new Uint8Array(init.body) : null,
          dispatcher: this.agent,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await res.body.text();
        return { status: res.statusCode, statusText: '', text: () => Promise.resolve(text) };
      },
    });
    if (result.status < 200 || result.status >= 300) {
      const detail = result.errorMessage ? `: ${result.errorMessage.trim().slice(0, 200)}` : '';
      throw new Error(
        `HTTP ${String(result.status)}${result.statusText ? ` ${result.statusText}` : ''}${detail}`,
      );
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** One remote-write series as the library takes it (its own type is not exported). */
export interface Timeseries {
  labels: { __name__: string; [name: string]: string };
  samples: { value: number; timestamp: number }[];
}

/** Remote write wants each series' labels sorted by name. */
function sortedLabels(
  name: string,
  common: Readonly<Record<string, string>>,
  labels: Labels,
  extra?: [string, string],
): Timeseries['labels'] {
  const all: Record<string, string> = { ...common, __name__: name };
  for (const [k, v] of Object.entries(labels) as [string, string | undefined][])
    if (v !== undefined && v !== '') all[k] = v;
  if (extra) all[extra[0]] = extra[1];
  const sorted = { __name__: name } as Timeseries['labels'];
  for (const k of Object.keys(all).sort()) {
    const v = all[k];
    if (v !== undefined) sorted[k] = v;
  }
  return sorted;
}

function familySeries(f: FamilySnapshot, s: MetricSnapshot, out: Timeseries[]): void {
  const name = f.spec.prometheus;
  const sample = (value: number) => [{ value, timestamp: s.atMs }];
  for (const p of f.values)
    out.push({ labels: sortedLabels(name, s.common, p.labels), samples: sample(p.value) });
  for (const h of f.histograms) {
    let cumulative = 0;
    for (let i = 0; i < h.counts.length; i++) {
      cumulative += h.counts[i] ?? 0;
      const le = i < h.bounds.length ? String(h.bounds[i]) : '+Inf';
      out.push({
        labels: sortedLabels(`${name}_bucket`, s.common, h.labels, ['le', le]),
        samples: sample(cumulative),
      });
    }
    out.push({ labels: sortedLabels(`${name}_sum`, s.common, h.labels), samples: sample(h.sum) });
    out.push({ labels: sortedLabels(`${name}_count`, s.common, h.labels), samples: sample(h.count) });
  }
}

export function toTimeseries(snapshot: MetricSnapshot): Timeseries[] {
  const out: Timeseries[] = [];
  for (const f of snapshot.families) familySeries(f, snapshot, out);
  return out;
}
