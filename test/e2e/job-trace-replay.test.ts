import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/exit-code.js';
import type { ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import { JobTraceEntrySchema } from '../../src/trace/index.js';
import { captureIo } from '../helpers/cli-io.js';
import { runCliOnClock } from '../helpers/cli-on-clock.js';

/*
 * Issue 49 item 2: a run's records made into a job trace (`jobstorm trace`), and the trace replayed
 * against the embedded emulator (the replay.yaml it writes), both on the manual clock. The replay
 * must send the same jobs, cancels, retries, stream reads, status calls and purges, each at the
 * same offset from its job's submission within 5 ms; the jobs at the same offsets from the first.
 */

const ORIGINAL = `name: lifecycle-mix
emulator: { workersMin: 2, workersMax: 6 }
phases:
  - { name: mix, duration: 3s, rate: 6 }
flows:
  - name: polled
    steps:
      - run: { input: { sleep_ms: 300 } }
      - poll: { until: final, interval: 150ms, timeout: 10s }
  - name: cancelled
    steps:
      - run: { input: { sleep_ms: 2000 } }
      - cancel: { after: 400ms }
      - status: {}
  - name: retried
    steps:
      - run: { input: { fail: true, sleep_ms: 50 } }
      - poll: { until: FAILED, interval: 100ms, timeout: 10s }
      - retry: {}
      - sleep: 250ms
      - status: {}
  - name: streamed
    steps:
      - run: { input: { stream: 3, sleep_ms: 400 } }
      - stream: { interval: 120ms, timeout: 10s }
  - name: sync
    steps:
      - runsync: { input: { sleep_ms: 100 }, wait: 5s }
  - name: purged
    weight: 0.3
    steps:
      - run: { input: { sleep_ms: 100 } }
      - sleep: 50ms
      - purge: {}
`;

function readRecordsText(text: string): ExchangeRecord[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as JobstormRecord)
    .filter((r): r is ExchangeRecord => r.type === 'exchange' && r.flow !== '_preflight');
}

interface Shape {
  jobs: number;
  calls: Record<string, number>;
  /** Per job in submission order: its offset from the first job, and its calls' offsets, by kind. */
  timeline: { at: number; calls: [string, number][] }[];
}

/** What a run sent, read from its records with none of the trace code: jobs and their calls. */
function shapeOf(records: readonly ExchangeRecord[]): Shape {
  const submits = records
    .filter((r) => ['run', 'runsync'].includes(r.op) && (r.attempt ?? 1) === 1)
    .sort((a, b) => a.sentAt - b.sentAt);
  const first = submits[0]?.sentAt ?? 0;
  const calls: Record<string, number> = {};
  const byJob = new Map<string, [string, number][]>();
  for (const r of records) {
    if (!['status', 'stream', 'cancel', 'retry'].includes(r.op) || r.jobId === undefined) continue;
    calls[r.op] = (calls[r.op] ?? 0) + 1;
    const submit = submits.find((s) => s.jobId === r.jobId);
    if (submit === undefined) continue;
    const list = byJob.get(r.jobId) ?? [];
    list.push([r.op, r.sentAt - submit.sentAt]);
    byJob.set(r.jobId, list);
  }
  calls.purge = records.filter((r) => r.op === 'purge-queue').length;
  const timeline = submits.map((s) => ({
    at: s.sentAt - first,
    calls: (byJob.get(s.jobId ?? '') ?? []).sort((a, b) => a[1] - b[1]),
  }));
  return { jobs: submits.length, calls, timeline };
}

describe('jobstorm trace, and the replay of what it wrote', () => {
  it('replays a run’s jobs and each of their calls at the same offsets within 5 ms', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-job-trace-'));
    await writeFile(join(dir, 'original.yaml'), ORIGINAL);
    const out = join(dir, 'original');
    const io = captureIo();
    const ran = await runCliOnClock(['run', join(dir, 'original.yaml'), '--out', out, '--record', '--no-preflight'], io);
    expect(ran, io.stderr.join('\n')).toBe(ExitCode.Ok);

    const traced = captureIo();
    expect(await runCliOnClock(['trace', out], traced), traced.stderr.join('\n')).toBe(ExitCode.Ok);
    const lines = (await readFile(join(out, 'job-trace.jsonl'), 'utf8')).split('\n').filter((l) => l !== '');
    // Every line is a valid line of the documented format.
    for (const l of lines) expect(JobTraceEntrySchema.safeParse(JSON.parse(l)).success, l).toBe(true);
    expect(traced.stdout.join('\n')).toContain(`${String(lines.length)} jobs`);

    const replayed = join(dir, 'replayed');
    const again = captureIo();
    const code = await runCliOnClock(
      ['run', join(out, 'replay.yaml'), '--out', replayed, '--record', '--no-preflight'],
      again,
    );
    expect(code, again.stderr.join('\n')).toBe(ExitCode.Ok);

    const before = shapeOf(readRecordsText(await readFile(join(out, 'records.ndjson'), 'utf8')));
    const after = shapeOf(readRecordsText(await readFile(join(replayed, 'records.ndjson'), 'utf8')));
    // The original made every kind of call, so the comparison below could have failed on each.
    for (const op of ['status', 'stream', 'cancel', 'retry', 'purge']) expect(before.calls[op], op).toBeGreaterThan(0);
    expect(before.jobs).toBe(lines.length);
    expect(after.jobs).toBe(before.jobs);
    expect(after.calls).toEqual(before.calls);
    before.timeline.forEach((job, i) => {
      const replay = after.timeline[i];
      expect(Math.abs((replay?.at ?? Infinity) - job.at), `job ${String(i)}`).toBeLessThanOrEqual(5);
      expect(replay?.calls.map(([op]) => op), `job ${String(i)}`).toEqual(job.calls.map(([op]) => op));
      job.calls.forEach(([, at], k) =>
        expect(Math.abs((replay?.calls[k]?.[1] ?? Infinity) - at), `job ${String(i)} call ${String(k)}`).toBeLessThanOrEqual(5),
      );
    });
  }, 120_000);

  it('says what is wrong with a folder that holds no records', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-job-trace-none-'));
    const io = captureIo();
    expect(await runCliOnClock(['trace', dir], io)).toBe(ExitCode.Usage);
    expect(io.stderr.join('\n')).toContain('no records.ndjson in this folder');
    expect(io.stderr.join('\n')).toContain('--record');
  });
});
