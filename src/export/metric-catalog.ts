/**
 * Every metric the live exports send, named once per ecosystem: Prometheus names follow its naming
 * practice (base units, `_total` counters, `_seconds` histograms), OTLP names follow the
 * OpenTelemetry semantic conventions where one exists (`http.client.request.duration`) and a
 * `jobstorm.` namespace elsewhere. README "Live metrics" lists this table for users.
 */
export type MetricKind = 'counter' | 'gauge' | 'histogram';

/** Label keys as Prometheus spells them; `OTEL_ATTRIBUTES` gives their OTLP attribute names. */
export type LabelKey =
  | 'run_id'
  | 'scenario'
  | 'shard'
  | 'operation'
  | 'method'
  | 'status_code'
  | 'error_type'
  | 'flow'
  | 'state'
  | 'check'
  | 'severity'
  | 'worker_state'
  | 'queue_state'
  | 'threshold';

export const OTEL_ATTRIBUTES: Readonly<Record<LabelKey, string>> = {
  run_id: 'jobstorm.run.id',
  scenario: 'jobstorm.scenario',
  shard: 'jobstorm.shard',
  operation: 'jobstorm.operation',
  method: 'http.request.method',
  status_code: 'http.response.status_code',
  error_type: 'error.type',
  flow: 'jobstorm.flow',
  state: 'jobstorm.job.state',
  check: 'jobstorm.check.id',
  severity: 'jobstorm.check.severity',
  worker_state: 'jobstorm.worker.state',
  queue_state: 'jobstorm.queue.state',
  threshold: 'jobstorm.threshold',
};

/** Labels whose OTLP attribute is an integer (the semantic conventions say so). */
export const INTEGER_ATTRIBUTES: ReadonlySet<LabelKey> = new Set(['status_code']);

export interface MetricSpec {
  kind: MetricKind;
  prometheus: string;
  otel: string;
  /** UCUM, as OTLP carries it. */
  unit: string;
  help: string;
}

function spec(kind: MetricKind, prometheus: string, otel: string, unit: string, help: string): MetricSpec {
  return { kind, prometheus, otel, unit, help };
}

export const METRICS = {
  requestDuration: spec(
    'histogram',
    'jobstorm_request_duration_seconds',
    'http.client.request.duration',
    's',
    'Request latency from the intended start (coordinated-omission free), by operation and status code',
  ),
  requests: spec(
    'counter',
    'jobstorm_requests_total',
    'jobstorm.requests',
    '{request}',
    'Requests by operation and status code (error_type set when no response arrived)',
  ),
  throttled: spec(
    'counter',
    'jobstorm_throttled_requests_total',
    'jobstorm.requests.throttled',
    '{request}',
    '429 answers by operation',
  ),
  errors: spec(
    'counter',
    'jobstorm_request_errors_total',
    'jobstorm.request.errors',
    '{request}',
    'Requests that got no response, by operation and error kind',
  ),
  dropped: spec(
    'counter',
    'jobstorm_dropped_arrivals_total',
    'jobstorm.arrivals.dropped',
    '{arrival}',
    'Arrivals not started because maxInFlight was reached, by flow',
  ),
  inFlight: spec(
    'gauge',
    'jobstorm_requests_in_flight',
    'jobstorm.requests.in_flight',
    '{request}',
    'Mean number of requests in flight over the last flush interval',
  ),
  jobsSubmitted: spec(
    'counter',
    'jobstorm_jobs_submitted_total',
    'jobstorm.jobs.submitted',
    '{job}',
    'Accepted /run and /runsync submissions',
  ),
  jobsFinal: spec(
    'counter',
    'jobstorm_jobs_final_total',
    'jobstorm.jobs.final',
    '{job}',
    'Jobs seen in a final state, by state',
  ),
  jobsLost: spec(
    'counter',
    'jobstorm_jobs_lost_total',
    'jobstorm.jobs.lost',
    '{job}',
    'Jobs answered 404 before they were seen final',
  ),
  jobsInFlight: spec(
    'gauge',
    'jobstorm_jobs_in_flight',
    'jobstorm.jobs.in_flight',
    '{job}',
    'Submitted jobs not yet seen final',
  ),
  delayTime: spec(
    'histogram',
    'jobstorm_job_delay_seconds',
    'jobstorm.job.delay_time',
    's',
    'delayTime of final jobs as the API reported it (time in queue)',
  ),
  executionTime: spec(
    'histogram',
    'jobstorm_job_execution_seconds',
    'jobstorm.job.execution_time',
    's',
    'executionTime of final jobs as the API reported it',
  ),
  jobDuration: spec(
    'histogram',
    'jobstorm_job_duration_seconds',
    'jobstorm.job.duration',
    's',
    'End to end: submit sent to first final status seen, by state',
  ),
  violations: spec(
    'counter',
    'jobstorm_violations_total',
    'jobstorm.violations',
    '{violation}',
    'Contract violations by check id and severity',
  ),
  workers: spec(
    'gauge',
    'jobstorm_target_workers',
    'jobstorm.target.workers',
    '{worker}',
    'Workers by state (idle, running) in the latest /health sample',
  ),
  queue: spec(
    'gauge',
    'jobstorm_target_jobs',
    'jobstorm.target.jobs',
    '{job}',
    'Jobs by state (in_queue, in_progress) in the latest /health sample',
  ),
  thresholdOk: spec(
    'gauge',
    'jobstorm_threshold_ok',
    'jobstorm.threshold.ok',
    '1',
    'Each threshold the per-second series judges live: 1 while it holds so far, 0 once it failed (a windowed one: once any window failed)',
  ),
  thresholdValue: spec(
    'gauge',
    'jobstorm_threshold_value',
    'jobstorm.threshold.value',
    '1',
    "Each live threshold's latest value (its last full window, or the run so far), in base units: seconds for latencies, a 0-1 share for rates, a count, or per second",
  ),
} as const satisfies Record<string, MetricSpec>;
