import { JOB_BUCKETS_S, REQUEST_BUCKETS_S } from '../../export/bucket-histogram.js';
import { DEFAULT_EXPORT_INTERVAL_MS } from '../../export/live-exports.js';
import { METRICS, OTEL_ATTRIBUTES } from '../../export/metric-catalog.js';
import { formatDuration } from '../../scenario/duration.js';
import { cell, code, generatedNotice, page, table } from './markdown.js';

const bounds = (list: readonly number[]): string => `${list.map(String).join(', ')}, +Inf`;

/** docs/reference/series.md: every series the live exports send, from src/export/metric-catalog.ts. */
export function seriesPage(): string {
  return page([
    generatedNotice(['src/export/metric-catalog.ts', 'src/export/bucket-histogram.ts']),
    '# Exported series reference',
    `Every series \`--export prometheus=…\` and \`--export otlp=…\` send, flushed every \`--export-interval\` (default ${formatDuration(DEFAULT_EXPORT_INTERVAL_MS)}) as cumulative totals. How to switch them on: [Live metrics](../live-export.md).`,
    '## Series',
    table(
      ['Prometheus (remote write)', 'OTLP', 'type', 'unit', 'what it measures'],
      Object.values(METRICS).map((m) => [
        code(m.prometheus),
        code(m.otel),
        m.kind,
        code(m.unit),
        cell(m.help),
      ]),
    ),
    '## Labels',
    'Every series carries `run_id`, `scenario` and `shard` and the scenario\'s `tags`; the others where the table above says "by …". OTLP spells them as attributes:',
    table(
      ['Prometheus label', 'OTLP attribute'],
      Object.entries(OTEL_ATTRIBUTES).map(([label, attribute]) => [code(label), code(attribute)]),
    ),
    '## Histogram buckets',
    'Upper bounds in seconds (`le` in remote write, explicit bounds in OTLP):',
    table(
      ['histograms', 'bounds (s)'],
      [
        [code(METRICS.requestDuration.prometheus), bounds(REQUEST_BUCKETS_S)],
        [
          [METRICS.delayTime, METRICS.executionTime, METRICS.jobDuration]
            .map((m) => code(m.prometheus))
            .join(', '),
          bounds(JOB_BUCKETS_S),
        ],
      ],
    ),
  ]);
}
