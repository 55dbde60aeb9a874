import { healthReadingOf, type HealthReading } from '../core/health-reading.js';
import type { ExchangeRecord, JobstormRecord } from '../core/record.js';
import type { Severity, Violation } from '../core/violation.js';
import type { JobEvents } from '../fold/job-events.js';
import { BucketHistogram, REQUEST_BUCKETS_S } from './bucket-histogram.js';
import { JobCells } from './job-cells.js';
import { METRICS, type MetricSpec } from './metric-catalog.js';
import type {
  FamilySnapshot,
  HistogramPoint,
  Labels,
  MetricSnapshot,
  ValuePoint,
} from './metric-snapshot.js';

/** One threshold as the session judged it so far (see LiveThresholds), in its own unit. */
export interface ThresholdStatus {
  expression: string;
  ok: boolean;
  value: number | null;
  unit: 'ms' | 'ratio' | 'count' | 'rps';
}

/** Prometheus and OTLP carry seconds, not the threshold's milliseconds. */
function baseUnits(value: number, unit: ThresholdStatus['unit']): number {
  return unit === 'ms' ? value / 1000 : value;
}

export interface LiveAggregateOptions {
  /** Shard label for what carries none of its own (violations, unsharded records). */
  shard: string;
  /** Labels on every series: run id, scenario, tags. */
  common: Readonly<Record<string, string>>;
  startMs: number;
}

/** One operation × status code (or error kind): a request counter and its latency histogram at once. */
interface RequestCell {
  op: string;
  method: string;
  status: number | undefined;
  errorKind: string | undefined;
  latency: BucketHistogram;
}

interface HealthGauges {
  idle?: number;
  running?: number;
  inQueue?: number;
  inProgress?: number;
}

class ShardCells {
  /** op → status code or error kind → cell: nested maps so a lookup builds no key string. */
  readonly requests = new Map<string, Map<number | string, RequestCell>>();
  readonly dropped = new Map<string, number>();
  readonly jobs = new JobCells();
  health: HealthGauges = {};
  /** Sum of request durations (ms), for the mean number in flight between two snapshots. */
  busyMs = 0;
  busyMsAtSnapshot = 0;
}

/**
 * The live exports' one aggregate: counters and fixed buckets updated per record (a few map lookups,
 * a binary search, no allocation once a series exists), read by every output at flush time.
 *
 * Job figures come from the JobFold that RunMetrics reads too. Request figures are counted here
 * beside RunMetrics' own because they are other figures, not copies: remote write and OTLP carry
 * fixed `le` buckets with an exact sum, which an HDR histogram cannot give back exactly; series are
 * per shard label and per status code or error kind, where the report merges shards and keys on
 * outcome; the warm-up is exported, where the report leaves it out; and the mean in flight is per
 * flush interval, where the report spreads each request over wall-clock seconds.
 */
export class LiveAggregate {
  private readonly shards = new Map<string, ShardCells>();
  private readonly violations = new Map<string, { severity: Severity; count: number }>();
  private lastShardName: string | undefined;
  private lastShard: ShardCells | undefined;
  private lastSnapshotMs: number;
  private thresholdStatuses: readonly ThresholdStatus[] = [];

  constructor(private readonly o: LiveAggregateOptions) {
    this.lastSnapshotMs = o.startMs;
  }

  /** `jobs`: what the session's JobFold made of this record (one fold for metrics, checks and exports). */
  add(record: JobstormRecord, jobs: JobEvents): void {
    if (record.type === 'exchange') this.addExchange(record, jobs);
    else if (record.type === 'dropped') {
      const cells = this.cells(record.shard ?? this.o.shard);
      cells.dropped.set(record.flow, (cells.dropped.get(record.flow) ?? 0) + 1);
    }
  }

  addViolation(v: Violation): void {
    const entry = this.violations.get(v.id);
    if (entry) entry.count++;
    else this.violations.set(v.id, { severity: v.severity, count: 1 });
  }

  /** The live thresholds as judged so far (the session judges; the exports only send). */
  setThresholds(statuses: readonly ThresholdStatus[]): void {
    this.thresholdStatuses = statuses;
  }

  snapshot(atMs: number): MetricSnapshot {
    const f = families();
    for (const t of this.thresholdStatuses) {
      f.thresholdOk.values.push({ labels: { threshold: t.expression }, value: t.ok ? 1 : 0 });
      if (t.value !== null)
        f.thresholdValue.values.push({
          labels: { threshold: t.expression },
          value: baseUnits(t.value, t.unit),
        });
    }
    const intervalMs = Math.max(1, atMs - this.lastSnapshotMs);
    this.lastSnapshotMs = atMs;
    for (const [shard, cells] of this.shards) this.shardPoints(f, shard, cells, intervalMs);
    for (const [check, { severity, count }] of this.violations)
      f.violations.values.push({ labels: { shard: this.o.shard, check, severity }, value: count });
    return { atMs, startMs: this.o.startMs, common: this.o.common, families: Object.values(f) };
  }

  private addExchange(r: ExchangeRecord, jobs: JobEvents): void {
    const cells = this.cells(r.shard ?? this.o.shard);
    let byStatus = cells.requests.get(r.op);
    if (!byStatus) {
      byStatus = new Map();
      cells.requests.set(r.op, byStatus);
    }
    const key = r.error !== undefined ? r.error.kind : (r.status ?? 0);
    let cell = byStatus.get(key);
    if (!cell) {
      cell = {
        op: r.op,
        method: r.method,
        status: r.error === undefined ? r.status : undefined,
        errorKind: r.error?.kind,
        latency: new BucketHistogram(REQUEST_BUCKETS_S),
      };
      byStatus.set(key, cell);
    }
    cell.latency.record((r.endAt - r.intendedAt) / 1000);
    cells.busyMs += r.endAt - r.sentAt;
    cells.jobs.add(jobs);
    if (jobs.evicted) this.cells(jobs.evictedShard ?? this.o.shard).jobs.evicted();
    const reading = healthReadingOf(r);
    if (reading) this.addHealth(cells, reading);
  }

  private addHealth(cells: ShardCells, h: HealthReading): void {
    cells.health = { idle: h.idle, running: h.running, inQueue: h.inQueue, inProgress: h.inProgress };
  }

  private cells(shard: string): ShardCells {
    if (shard === this.lastShardName && this.lastShard) return this.lastShard;
    let cells = this.shards.get(shard);
    if (!cells) {
      cells = new ShardCells();
      this.shards.set(shard, cells);
    }
    this.lastShardName = shard;
    this.lastShard = cells;
    return cells;
  }

  private shardPoints(f: Families, shard: string, cells: ShardCells, intervalMs: number): void {
    const throttled = new Map<string, number>();
    for (const byStatus of cells.requests.values()) {
      for (const c of byStatus.values()) {
        const labels: Labels = { shard, operation: c.op, method: c.method };
        if (c.status !== undefined) labels.status_code = String(c.status);
        if (c.errorKind !== undefined) labels.error_type = c.errorKind;
        f.requests.values.push({ labels, value: c.latency.count });
        f.requestDuration.histograms.push(histogramPoint(labels, c.latency));
        if (c.status === 429) throttled.set(c.op, (throttled.get(c.op) ?? 0) + c.latency.count);
        if (c.errorKind !== undefined)
          f.errors.values.push({
            labels: { shard, operation: c.op, error_type: c.errorKind },
            value: c.latency.count,
          });
      }
    }
    for (const [operation, value] of throttled)
      f.throttled.values.push({ labels: { shard, operation }, value });
    for (const [flow, value] of cells.dropped) f.dropped.values.push({ labels: { shard, flow }, value });
    f.inFlight.values.push({
      labels: { shard },
      value: (cells.busyMs - cells.busyMsAtSnapshot) / intervalMs,
    });
    cells.busyMsAtSnapshot = cells.busyMs;
    const jobs = cells.jobs;
    f.jobsSubmitted.values.push({ labels: { shard }, value: jobs.submitted });
    f.jobsLost.values.push({ labels: { shard }, value: jobs.lost });
    f.jobsInFlight.values.push({ labels: { shard }, value: jobs.open });
    for (const state of JobCells.states) {
      f.jobsFinal.values.push({ labels: { shard, state }, value: jobs.final[state] });
      const d = jobs.duration[state];
      if (d.count > 0) f.jobDuration.histograms.push(histogramPoint({ shard, state }, d));
    }
    if (jobs.delay.count > 0) f.delayTime.histograms.push(histogramPoint({ shard }, jobs.delay));
    if (jobs.execution.count > 0) f.executionTime.histograms.push(histogramPoint({ shard }, jobs.execution));
    const h = cells.health;
    gauge(f.workers.values, { shard, worker_state: 'idle' }, h.idle);
    gauge(f.workers.values, { shard, worker_state: 'running' }, h.running);
    gauge(f.queue.values, { shard, queue_state: 'in_queue' }, h.inQueue);
    gauge(f.queue.values, { shard, queue_state: 'in_progress' }, h.inProgress);
  }
}

type Families = Record<keyof typeof METRICS, FamilySnapshot>;

function families(): Families {
  const out = {} as Families;
  for (const [key, spec] of Object.entries(METRICS) as [keyof typeof METRICS, MetricSpec][])
    out[key] = { spec, values: [], histograms: [] };
  return out;
}

function gauge(into: ValuePoint[], labels: Labels, value: number | undefined): void {
  if (value !== undefined) into.push({ labels, value });
}

function histogramPoint(labels: Labels, h: BucketHistogram): HistogramPoint {
  return { labels, bounds: h.bounds, counts: Array.from(h.counts), sum: h.sum, count: h.count };
}
