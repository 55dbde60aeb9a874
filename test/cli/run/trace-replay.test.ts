import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../../helpers/cli-io.js';
import { runCliOnClock } from '../../helpers/cli-on-clock.js';

interface Exchange {
  type: string;
  op?: string;
  intendedAt?: number;
  sentAt?: number;
  jobId?: string;
  reqBytes?: number;
  output?: { usageTokens?: number };
  arrival?: true;
}

// Mooncake rows: timestamps 5000..8000 ms (played from the first), their output lengths the max_tokens.
const ROWS = [
  { timestamp: 5000, input_length: 3, output_length: 40 },
  { timestamp: 5400, input_length: 5, output_length: 7 },
  { timestamp: 6000, input_length: 2, output_length: 123 },
  { timestamp: 8000, input_length: 4, output_length: 1 },
];

// The emulator's model-like workers generate max_tokens exactly, and say so in the stream's usage.
const SCENARIO = `name: trace-replay
emulator:
  profile:
    name: llm
    llm: { prefillMsPerInputToken: 0.5, decodeMsPerToken: 1 }
phases:
  - { name: replay, replay: { file: trace.jsonl, format: mooncake, timeScale: 2 } }
flows:
  - name: submit
    steps:
      - run: { input: { max_tokens: "{{trace.outputTokens}}", prompt: "{{trace.prompt}}" } }
      - openai:
          path: chat/completions
          stream: true
          body:
            model: jobstorm-llm
            max_tokens: "{{trace.outputTokens}}"
            stream_options: { include_usage: true }
            messages: [{ role: user, content: "{{trace.prompt}}" }]
`;

/*
 * Issue 49: a phase replays a Mooncake trace against the embedded emulator on the manual clock.
 * Each row is one submission at its time from the first row, halved by timeScale 2, and its
 * output length is the request's max_tokens through the input template.
 */
describe('jobstorm run replaying a trace', () => {
  it('submits once per row at the scaled times, with max_tokens from the row', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-trace-replay-'));
    await writeFile(join(dir, 'trace.jsonl'), `${ROWS.map((r) => JSON.stringify(r)).join('\n')}\n`);
    await writeFile(join(dir, 'replay.yaml'), SCENARIO);
    const out = join(dir, 'out');
    const io = captureIo();
    const code = await runCliOnClock(['run', join(dir, 'replay.yaml'), '--out', out, '--record'], io);
    expect(code, io.stderr.join('\n')).toBe(0);
    const records = (await readFile(join(out, 'records.ndjson'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Exchange);
    const runs = records.filter((r) => r.type === 'exchange' && r.op === 'run');
    expect(runs).toHaveLength(ROWS.length);
    const expected = [0, 200, 500, 1500];
    runs.forEach((r, i) => expect(Math.abs((r.intendedAt ?? NaN) - (expected[i] ?? 0))).toBeLessThan(1));
    // The records keep no request body: its size is the rendered body's, max_tokens a number.
    const bodies = ROWS.map((r, i) => ({
      input: {
        max_tokens: r.output_length,
        prompt: ['the time people', 'the time people way day', 'the time', 'the time people way'][i],
      },
    }));
    // The model-like worker generates max_tokens exactly: the answer's usage is the row's length.
    const chats = records.filter((r) => r.type === 'exchange' && r.op === 'openai');
    expect(chats.map((r) => r.output?.usageTokens).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
      1, 7, 40, 123,
    ]);
    expect(runs.map((r) => r.reqBytes)).toEqual(bodies.map((b) => Buffer.byteLength(JSON.stringify(b))));
    // Each row's first request, and only it, is marked as its arrival; the reports show the
    // trace's arrivals per second beside what was sent (here the same: the manual clock is never late).
    expect(records.filter((r) => r.arrival === true).map((r) => r.op)).toEqual(['run', 'run', 'run', 'run']);
    const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as {
      series: { due?: number[]; sent?: number[] };
    };
    const sum = (xs: number[] | undefined): number => (xs ?? []).reduce((a, b) => a + b, 0);
    expect([sum(summary.series.due), sum(summary.series.sent)]).toEqual([4, 4]);
    expect(summary.series.sent).toEqual(summary.series.due);
    expect(await readFile(join(out, 'summary.md'), 'utf8')).toContain(
      'Arrivals: 4 of 4 arrivals sent, each in the second it was due',
    );
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain('Arrivals per second: due (by the schedule or the trace) and sent');
  }, 60_000);

  it('replays a job trace: each job submitted as its row says, padded to its inputBytes, its calls at their offsets', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jobstorm-job-trace-phase-'));
    const rows = [
      { at: 1000, op: 'run', inputBytes: 300, actions: [{ at: 100, op: 'status' }, { at: 250, op: 'cancel' }, { at: 400, op: 'purge-queue' }] },
      { at: 1500, op: 'runsync', actions: [{ at: 700, op: 'stream' }, { at: 900, op: 'retry' }] },
      { at: 1600, op: 'openai', outputTokens: 4 },
    ];
    await writeFile(join(dir, 'jobs.jsonl'), `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    await writeFile(
      join(dir, 'replay.yaml'),
      `name: job-trace
phases:
  - replay: { file: jobs.jsonl, format: jobstorm }
flows:
  - name: replay
    steps:
      - traceJob:
          run: { input: { sleep_ms: 2000 } }
          runsync: { input: { sleep_ms: 10 } }
          openai: { body: { model: m, max_tokens: "{{trace.outputTokens}}", messages: [{ role: user, content: hi }] } }
`,
    );
    const out = join(dir, 'out');
    const io = captureIo();
    const code = await runCliOnClock(['run', join(dir, 'replay.yaml'), '--out', out, '--record', '--no-preflight'], io);
    expect(code, io.stderr.join('\n')).toBe(0);
    const records = (await readFile(join(out, 'records.ndjson'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Exchange)
      .filter((r) => r.type === 'exchange' && r.op !== 'health');
    const sent = records.map((r) => [r.op, Math.round(r.sentAt ?? NaN)]).sort((a, b) => Number(a[1]) - Number(b[1]));
    // Submissions at 0, 500 and 600 ms (from the first row); each call at its offset from its job's submission.
    expect(sent).toEqual([
      ['run', 0],
      ['status', 100],
      ['cancel', 250],
      ['purge-queue', 400],
      ['runsync', 500],
      ['openai', 600],
      ['stream', 1200],
      ['retry', 1400],
    ]);
    // The row's inputBytes sizes the body, which the step's own input is far smaller than.
    expect(records.find((r) => r.op === 'run')?.reqBytes).toBe(300);
  }, 60_000);
});
