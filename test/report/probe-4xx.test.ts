import { describe, expect, it } from 'vitest';
import {
  PREFLIGHT_FLOW,
  RECORD_VERSION,
  type ExchangeRecord,
  type JobstormRecord,
  type RunRecord,
} from '../../src/core/record.js';
import { renderTerminalSummary } from '../../src/report/report-writer.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { parseSummary } from '../../src/report/summary-schema.js';
import type { Summary } from '../../src/report/summary.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * Issue 34: a passed smoke run showed 4xx counts nothing explained: they were the answers to the
 * probes and the preflight, which send bad requests on purpose. They are counted apart and said so.
 */
const RUN: RunRecord = {
  v: RECORD_VERSION,
  type: 'run',
  runId: 'probe-4xx',
  scenario: 'probe-4xx',
  target: 'http://127.0.0.1:1/v2/x',
  startedAtMs: 1_700_000_000_000,
  ownsEndpoint: true,
};

let seq = 1;
function exchange(over: Partial<ExchangeRecord>): ExchangeRecord {
  seq++;
  return {
    v: RECORD_VERSION,
    type: 'exchange',
    seq,
    op: 'status',
    method: 'GET',
    path: '/status/x',
    intendedAt: seq,
    sentAt: seq,
    endAt: seq + 2,
    status: 200,
    reqBytes: 0,
    resBytes: 10,
    ...over,
  };
}

function summaryOf(records: readonly JobstormRecord[], run: RunRecord = RUN): Summary {
  const metrics = new FoldedMetrics();
  for (const r of [run, ...records]) metrics.add(r);
  return buildSummary({ run, metrics, durationMs: 1000 });
}

const PROBES = [
  exchange({ flow: PREFLIGHT_FLOW, status: 404 }),
  exchange({
    op: 'run',
    method: 'POST',
    path: '/run',
    status: 400,
    req: { probe: 'request.missing-input', expect: 'reject' },
  }),
  exchange({ status: 404, req: { probe: 'request.unknown-job', expect: 'reject' } }),
  // A probe answered 2xx is no 4xx to explain.
  exchange({ status: 200, req: { probe: 'request.job' } }),
];

describe('4xx answers to probes', () => {
  it('are counted apart, per operation, and the terminal says where they came from', () => {
    const s = summaryOf([...PROBES, exchange({ status: 200 })]);
    expect(s.operations.status?.probe4xx).toBe(2);
    expect(s.operations.run?.probe4xx).toBe(1);
    expect(renderTerminalSummary(s)).toContain(
      '4xx: all 3 answered probes that send bad requests on purpose (the checks judge them)',
    );
  });

  it('a 4xx of the load itself is not put on the probes', () => {
    const s = summaryOf([...PROBES, exchange({ status: 404 })]);
    expect(s.operations.status?.count4xx).toBe(3);
    expect(renderTerminalSummary(s)).toContain('4xx: 3 of 4 answered probes');
  });

  it('without probes the summary has no such field and the terminal no such line', () => {
    const s = summaryOf([exchange({ status: 404 }), exchange({ status: 200 })]);
    expect(Object.keys(s.operations.status ?? {})).not.toContain('probe4xx');
    expect(renderTerminalSummary(s)).not.toMatch(/answered probes/);
  });

  it('survives summary.json and a merge of shards', () => {
    const s = summaryOf(PROBES);
    const read = parseSummary(JSON.parse(JSON.stringify(s)), 'summary.json');
    expect(read.operations.status?.probe4xx).toBe(2);
    const merged = mergeSummaries([read, summaryOf(PROBES, { ...RUN, runId: 'probe-4xx-2' })], {
      force: true,
    });
    expect(merged.operations.status?.probe4xx).toBe(4);
  });
});
